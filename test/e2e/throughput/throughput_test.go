package throughput

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"scheduler-extender/test/e2e/checker"
	"scheduler-extender/test/e2e/framework"
)

var (
	flagWorkloads = flag.String("workloads", strings.Join(workloadOrder, ","),
		"comma-separated workloads, each NAME or NAME=SCALE (the Scheduling prefix may be left out)")
	flagScale          = flag.Float64("scale", 0.2, "fraction of upstream's node and pod counts, for workloads without their own")
	flagConfigurations = flag.String("configurations", "in-tree,chart-default,exclusive", "configurations to run, in order (rotated per workload)")
	flagMeasureTimeout = flag.Duration("measure-timeout", 10*time.Minute, "longest wait for the measured pods to be bound")
	flagInitTimeout    = flag.Duration("init-timeout", 10*time.Minute, "longest wait for the init pods to be bound")
	flagCreators       = flag.Int("creators", 32, "parallel pod creators")
	flagSchedulerQPS   = flag.Int("scheduler-qps", 5000, "kube-scheduler's clientConnection qps and burst (scheduler_perf's 5000); 0 keeps kube-scheduler's defaults (50/100), as the chart does")
	flagDir            = flag.String("dir", "", "working directory for clusters and logs (default /tmp/sx-throughput-<time>)")
	flagOut            = flag.String("out", "/tmp/throughput.md", "markdown report")
	flagPrecreate      = flag.Bool("precreate", true, "create the measured pods while kube-scheduler is stopped and start it again once they exist, so that pod creation cannot be the bottleneck; false: create them while it runs, as scheduler_perf does")
	flagNoRotate       = flag.Bool("no-rotate", false, "run the configurations in the same order for every workload")
)

type plannedWorkload struct {
	w     workload
	scale float64
}

func plan() ([]plannedWorkload, error) {
	var out []plannedWorkload
	for _, entry := range strings.Split(*flagWorkloads, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, scaleText, hasScale := strings.Cut(entry, "=")
		scale := *flagScale
		if hasScale {
			var err error
			if scale, err = strconv.ParseFloat(scaleText, 64); err != nil || scale <= 0 {
				return nil, fmt.Errorf("bad scale in %q", entry)
			}
		}
		full, err := resolveWorkloadName(name)
		if err != nil {
			return nil, err
		}
		out = append(out, plannedWorkload{w: upstreamWorkloads(scale)[full], scale: scale})
	}
	return out, nil
}

func selectedConfigurations() ([]configuration, error) {
	var out []configuration
	for _, name := range strings.Split(*flagConfigurations, ",") {
		found := false
		for _, c := range configurations {
			if c.name == strings.TrimSpace(name) {
				out = append(out, c)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown configuration %q", name)
		}
	}
	return out, nil
}

// TestThroughput runs every selected workload in every configuration, interleaved: one
// fresh cluster per workload with its nodes, shared by the configurations, each of which
// starts its own kube-scheduler (and extender) and leaves no pod or namespace behind.
func TestThroughput(t *testing.T) {
	if os.Getenv("SX_THROUGHPUT") != "1" {
		t.Skip("a benchmark of tens of minutes: run bench/throughput.sh (SX_THROUGHPUT=1)")
	}
	paths, err := framework.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := upstreamDir()
	if err != nil {
		t.Fatal(err)
	}
	tpl := templates{dir: upstream}
	workloads, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	configs, err := selectedConfigurations()
	if err != nil {
		t.Fatal(err)
	}
	dir := *flagDir
	if dir == "" {
		dir = fmt.Sprintf("/tmp/sx-throughput-%s", time.Now().UTC().Format("20060102-150405"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	header := reportHeader(workloads, configs, dir)
	var results []result
	footer := func() string { return "" }
	write := func() {
		if err := writeReport(*flagOut, header, results, footer()); err != nil {
			t.Errorf("writing %s: %v", *flagOut, err)
		}
	}

	for wi, pw := range workloads {
		w := pw.w
		order := append([]configuration(nil), configs...)
		if !*flagNoRotate {
			order = append(order[wi%len(order):], order[:wi%len(order)]...)
		}
		clusterDir := filepath.Join(dir, w.name)
		t.Logf("%s at scale %g: %d nodes, %d init pods, %d measured pods; configurations %v",
			w.name, pw.scale, w.nodes, w.initPods(), w.measure.count, names(order))
		started := time.Now()
		cluster, err := framework.StartCluster(paths, clusterDir, w.nodes, 1)
		if err != nil {
			t.Errorf("%s: starting the cluster: %v", w.name, err)
			continue
		}
		t.Logf("%s: cluster with %d nodes up in %s", w.name, w.nodes, time.Since(started).Round(time.Millisecond))
		for ci, c := range order {
			r := runOnce(ctx, t, cluster, tpl, w, c, fmt.Sprintf("%s/%d-%s", clusterDir, ci, c.name))
			results = append(results, r)
			write()
			if err := cleanUp(ctx, cluster.Client, w.namespaceNames(), 5*time.Minute); err != nil {
				t.Errorf("%s: cleaning up after %s: %v; starting a new cluster", w.name, c.name, err)
				_ = cluster.Stop()
				if cluster, err = framework.StartCluster(paths, clusterDir+fmt.Sprintf("-%d", ci+1), w.nodes, 1); err != nil {
					t.Errorf("%s: restarting the cluster: %v", w.name, err)
					break
				}
			}
		}
		if cluster != nil {
			if err := cluster.Stop(); err != nil {
				t.Errorf("%s: stopping the cluster: %v", w.name, err)
			}
		}
	}
	write()
	t.Logf("report written to %s", *flagOut)
}

func names(cs []configuration) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

func reportHeader(workloads []plannedWorkload, configs []configuration, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scheduling throughput: kube-scheduler v1.37.2 alone and with scheduler-extender\n\n")
	fmt.Fprintf(&b, "Run %s UTC, working directory %s (logs per workload and configuration).\n\n", time.Now().UTC().Format("2006-01-02 15:04:05"), dir)
	fmt.Fprintf(&b, "Command line: `%s`\n\n", strings.Join(os.Args, " "))
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), GOMAXPROCS %d.\n\n", runtime.NumCPU(), cpuModel(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "Workloads (scale: fraction of upstream's node and pod counts): ")
	for i, pw := range workloads {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s/%s x%g", pw.w.name, pw.w.upstream, pw.scale)
	}
	fmt.Fprintf(&b, ". Configurations: %v; kube-scheduler client qps/burst %d (0: its defaults); measured pods created %s.\n", names(configs), *flagSchedulerQPS,
		map[bool]string{true: "before kube-scheduler (re)starts (-precreate)", false: "while kube-scheduler runs"}[*flagPrecreate])
	return b.String()
}

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// runOnce runs the workload once in a configuration on a cluster that has its nodes only.
func runOnce(ctx context.Context, t *testing.T, cluster *framework.Cluster, tpl templates, w workload, c configuration, dir string) result {
	r := result{workload: w, configuration: c.name}
	fail := func(err error) result {
		r.err = err
		t.Errorf("%s/%s: %v", w.name, c.name, err)
		return r
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	rendering, err := render(ctx, cluster.Helm(), dir, c)
	if err != nil {
		return fail(err)
	}

	var ext *framework.HostExtender
	extenderURL := ""
	if c.extender {
		args, err := rendering.hostExtenderArgs(dir, cluster.Kubeconfig)
		if err != nil {
			return fail(err)
		}
		if ext, err = framework.StartHostExtender(ctx, filepath.Join(dir, "extender.log"), cluster.ExtenderBinary, args...); err != nil {
			return fail(err)
		}
		defer ext.Stop()
		extenderURL = ext.Verbs
	}
	configFile, configText, err := rendering.schedulerConfigFile(dir, filepath.Join(cluster.Dir, "scheduler.kubeconfig"), extenderURL, *flagSchedulerQPS)
	if err != nil {
		return fail(err)
	}
	t.Logf("%s/%s: kube-scheduler configuration:\n%s", w.name, c.name, configText)
	scheduler, err := startScheduler(cluster, configFile, filepath.Join(dir, "kube-scheduler.log"))
	if err != nil {
		return fail(err)
	}
	defer func() {
		if scheduler != nil {
			scheduler.Stop()
		}
	}()

	creator := *cluster.Config
	creator.QPS, creator.Burst = 5000, 5000
	client, err := kubernetesClient(&creator)
	if err != nil {
		return fail(err)
	}
	bound, err := watchBoundPods(client)
	if err != nil {
		return fail(err)
	}
	defer bound.close()

	if err := createNamespaces(ctx, client, tpl, w.namespaces); err != nil {
		return fail(err)
	}
	var initNamespaces []string
	seen := map[string]bool{}
	for _, g := range w.init {
		if !seen[g.namespace] {
			seen[g.namespace] = true
			initNamespaces = append(initNamespaces, g.namespace)
		}
	}
	initStart := time.Now()
	if r.initCreated, err = createPods(ctx, client, tpl, w.init, *flagCreators, "i"); err != nil {
		return fail(err)
	}
	if n := bound.waitBound(ctx, w.initPods(), *flagInitTimeout, initNamespaces...); n < w.initPods() {
		r.timedOut = true
		return fail(fmt.Errorf("only %d of %d init pods bound within %s", n, w.initPods(), *flagInitTimeout))
	}
	r.initBound = time.Since(initStart)
	t.Logf("%s/%s: %d init pods created in %s, all bound in %s", w.name, c.name, w.initPods(), r.initCreated.Round(time.Millisecond), r.initBound.Round(time.Millisecond))

	var before map[string]float64
	if ext != nil {
		if before, err = ext.ScrapeMetrics(ctx); err != nil {
			return fail(fmt.Errorf("extender metrics: %v", err))
		}
	}
	if *flagPrecreate {
		scheduler.Stop()
		scheduler = nil
	}
	s := startSampler(bound, w.measure.namespace)
	measureStart := time.Now()
	if r.created, err = createPods(ctx, client, tpl, []podGroup{w.measure}, *flagCreators, "m"); err != nil {
		s.finish()
		return fail(err)
	}
	if *flagPrecreate {
		if n := bound.count(w.measure.namespace); n != 0 {
			s.finish()
			return fail(fmt.Errorf("%d measured pods bound while kube-scheduler was stopped", n))
		}
		if scheduler, err = startScheduler(cluster, configFile, filepath.Join(dir, "kube-scheduler-measure.log")); err != nil {
			s.finish()
			return fail(err)
		}
		measureStart = time.Now()
	}
	r.measured = bound.waitBound(ctx, w.measure.count, *flagMeasureTimeout-time.Since(measureStart), w.measure.namespace)
	samples := s.finish()
	r.load = loadAverage()
	r.timedOut = r.measured < w.measure.count
	// The run's duration: from the first measured pod bound to the last, so that neither
	// kube-scheduler's start (-precreate) nor the first creations count; the pods bound in it
	// are all but the first.
	r.duration = bound.last().Sub(bound.first(w.measure.namespace))
	r.throughput = summarize(samples)
	t.Logf("%s/%s: %d measured pods created in %s (%.0f/s); %d bound in %s; %d samples: avg %.1f p50 %.1f p90 %.1f p95 %.1f p99 %.1f pods/s",
		w.name, c.name, w.measure.count, r.created.Round(time.Millisecond), rate(w.measure.count, r.created),
		r.measured, r.duration.Round(time.Millisecond), len(samples),
		r.throughput.Average, r.throughput.P50, r.throughput.P90, r.throughput.P95, r.throughput.P99)
	t.Logf("%s/%s: samples (pods/s, in order): %s", w.name, c.name, formatSamples(samples))
	if ext != nil {
		after, err := ext.ScrapeMetrics(ctx)
		if err != nil {
			return fail(fmt.Errorf("extender metrics: %v", err))
		}
		r.verbs = delta(before, after)
		t.Logf("%s/%s: extender filter %s, prioritize %s, bind %s, preempt %s ms (requests); share %s",
			w.name, c.name, r.extenderMs("filter"), r.extenderMs("prioritize"), r.extenderMs("bind"), r.extenderMs("preempt"), r.share())
	}

	report, err := checker.CheckCluster(ctx, client)
	if err != nil {
		return fail(fmt.Errorf("checker: %v", err))
	}
	r.violations, r.unbound = len(report.Violations), len(report.Unbound)
	for i, v := range report.Violations {
		if i == 10 {
			t.Logf("... and %d more", len(report.Violations)-10)
			break
		}
		t.Errorf("%s/%s: violation: %s", w.name, c.name, v)
	}
	t.Logf("%s/%s: checker: %d pods checked, %d unbound, %d violations", w.name, c.name, report.Checked, len(report.Unbound), len(report.Violations))
	return r
}

func formatSamples(samples []float64) string {
	parts := make([]string, len(samples))
	for i, v := range samples {
		parts[i] = strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}
