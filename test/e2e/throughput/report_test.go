package throughput

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// result is one workload run in one configuration.
type result struct {
	workload      workload
	configuration string
	throughput    summary
	measured      int           // measured pods bound
	duration      time.Duration // first measured pod bound to last bound
	created       time.Duration // creating the measured pods
	initCreated   time.Duration
	initBound     time.Duration // creating the init pods to all bound
	verbs         map[string]verbTime
	violations    int
	unbound       int
	timedOut      bool
	load          string // /proc/loadavg's 1-minute figure when the measured pods were all bound
	err           error
}

// extenderMs is the mean milliseconds per request of a verb, or "-".
func (r result) extenderMs(verb string) string {
	v, ok := r.verbs[verb]
	if !ok || v.count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f (%d)", 1000*v.seconds/v.count, int(v.count))
}

// share estimates the extender's part of kube-scheduler's scheduling cycle: the time of the
// extender's requests made inside the cycle (filter, prioritize, preempt) per measured pod,
// over the wall time per measured pod (run duration / pods bound). /bind is left out: it runs
// in kube-scheduler's asynchronous binding cycle, beside the next pods' scheduling cycles, and
// is reported on its own.
func (r result) share() string {
	if r.verbs == nil || r.measured < 2 || r.duration <= 0 {
		return "-"
	}
	total := 0.0
	for _, verb := range []string{"filter", "prioritize", "preempt"} {
		total += r.verbs[verb].seconds
	}
	perPod := total / float64(r.measured)
	cycle := r.duration.Seconds() / float64(r.measured-1)
	return fmt.Sprintf("%.0f%% (%.2f of %.2f ms)", 100*perPod/cycle, 1000*perPod, 1000*cycle)
}

func (r result) row() string {
	w := r.workload
	status := fmt.Sprint(r.violations)
	if r.unbound > 0 {
		status += fmt.Sprintf(", %d unbound", r.unbound)
	}
	if r.timedOut {
		status += ", TIMED OUT"
	}
	if r.err != nil {
		status += ", ERROR: " + strings.ReplaceAll(r.err.Error(), "|", "/")
	}
	t := r.throughput
	return fmt.Sprintf("| %s | %d/%d/%d | %s | %.1f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s | %.1fs (%.0f pods/s) | %s | %s |",
		w.name, w.nodes, w.initPods(), w.measure.count, r.configuration,
		t.Average, t.P50, t.P90, t.P99,
		r.extenderMs("filter"), r.extenderMs("prioritize"), r.extenderMs("bind"), r.share(),
		fmt.Sprintf("%d in %.1fs", r.measured, r.duration.Seconds()),
		r.created.Seconds(), rate(w.measure.count, r.created), r.load, status)
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

const tableHeader = `| workload | nodes/init/measured | configuration | pods/s avg | p50 | p90 | p99 | extender filter ms (requests) | prioritize ms (requests) | bind ms (requests) | est. extender share of cycle (filter+prioritize+preempt per pod / wall time per pod) | measured bound in | measured pods created in | load1 at end | violations |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|`

// writeReport rewrites the markdown file with the rows so far (after every run, so that an
// interrupted run keeps what it measured).
func writeReport(path, header string, results []result, footer string) error {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("\n\n")
	b.WriteString(tableHeader)
	b.WriteString("\n")
	for _, r := range results {
		b.WriteString(r.row())
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(footer)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if fields := strings.Fields(string(data)); len(fields) > 0 {
		return fields[0]
	}
	return "?"
}
