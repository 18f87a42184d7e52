package throughput

import (
	"fmt"
	"path/filepath"

	"scheduler-extender/test/e2e/framework"
)

// verbs whose request durations are reported.
var verbs = []string{"filter", "prioritize", "bind", "preempt"}

// verbTime is the extender's requests of one verb over an interval.
type verbTime struct {
	count   float64
	seconds float64
}

const durationMetric = "scheduler_extender_request_duration_seconds"

// delta is the per-verb count and total duration between two scrapes.
func delta(before, after map[string]float64) map[string]verbTime {
	out := map[string]verbTime{}
	for _, v := range verbs {
		label := fmt.Sprintf(`endpoint="%s"`, v)
		out[v] = verbTime{
			count:   framework.Sum(after, durationMetric+"_count", label) - framework.Sum(before, durationMetric+"_count", label),
			seconds: framework.Sum(after, durationMetric+"_sum", label) - framework.Sum(before, durationMetric+"_sum", label),
		}
	}
	return out
}

// startScheduler runs the upstream kube-scheduler with a configuration file, at the chart's
// verbosity, without a serving port (nothing here reads its endpoints).
func startScheduler(cluster *framework.Cluster, configFile, log string) (*framework.Process, error) {
	kubeconfig := filepath.Join(cluster.Dir, "scheduler.kubeconfig")
	return framework.StartProcess(log, filepath.Join(cluster.KubernetesBin, "kube-scheduler"),
		"--config", configFile,
		"--authentication-kubeconfig", kubeconfig,
		"--authorization-kubeconfig", kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=0", "--v=2")
}
