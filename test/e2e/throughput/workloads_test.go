package throughput

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The workloads of upstream's test/integration/scheduler_perf/affinity/performance-config.yaml
// (k8s.io/kubernetes v1.37.2), each at its thresholded "performance" size, transcribed here:
// node counts, namespaces, and the pod groups in the order the workload creates them. The pod
// and namespace templates are read from upstream's own files in the module cache.

// podGroup is one createPods op: count pods from a template in a namespace.
type podGroup struct {
	template  string // file under scheduler_perf/templates
	namespace string
	count     int
}

type namespaceSpec struct {
	name     string
	template string // "" for a plain namespace, else a file under templates
}

type workload struct {
	name       string // upstream's test case name
	upstream   string // upstream's workload (size) name
	nodes      int
	namespaces []namespaceSpec
	init       []podGroup
	measure    podGroup
	floor      float64 // the reference floor in pods/s the brief quotes
}

func (w workload) initPods() int {
	n := 0
	for _, g := range w.init {
		n += g.count
	}
	return n
}

// namespaceNames are every namespace the workload creates.
func (w workload) namespaceNames() []string {
	var out []string
	for _, ns := range w.namespaces {
		out = append(out, ns.name)
	}
	return out
}

func nsRange(prefix string, count int, template string) []namespaceSpec {
	var out []namespaceSpec
	for i := 0; i < count; i++ {
		out = append(out, namespaceSpec{name: fmt.Sprintf("%s-%d", prefix, i), template: template})
	}
	return out
}

// podSets is createPodSets: perNamespace pods in each of the count namespaces prefix-i.
func podSets(template, prefix string, count, perNamespace int) []podGroup {
	var out []podGroup
	for i := 0; i < count; i++ {
		out = append(out, podGroup{template: template, namespace: fmt.Sprintf("%s-%d", prefix, i), count: perNamespace})
	}
	return out
}

// scaled rounds n*scale, keeping at least 1.
func scaled(n int, scale float64) int {
	v := int(math.Round(float64(n) * scale))
	if v < 1 {
		v = 1
	}
	return v
}

// upstreamWorkloads builds the workloads at scale (a fraction of upstream's node and pod
// counts; for createPodSets the number of namespaces is scaled, pods per namespace kept).
func upstreamWorkloads(scale float64) map[string]workload {
	s := func(n int) int { return scaled(n, scale) }
	sched2 := nsRange("sched", 2, "")
	out := map[string]workload{}
	add := func(w workload) { out[w.name] = w }

	add(workload{
		name: "SchedulingPodAntiAffinity", upstream: "5000Nodes_2000Pods", floor: 60,
		nodes: s(5000), namespaces: sched2,
		init:    []podGroup{{"pod-with-pod-anti-affinity.yaml", "sched-0", s(1000)}},
		measure: podGroup{"pod-with-pod-anti-affinity.yaml", "sched-1", s(2000)},
	})
	add(workload{
		name: "SchedulingPodAffinity", upstream: "5000Nodes_5000Pods", floor: 35,
		nodes: s(5000), namespaces: sched2,
		init:    []podGroup{{"pod-with-pod-affinity.yaml", "sched-0", s(5000)}},
		measure: podGroup{"pod-with-pod-affinity.yaml", "sched-1", s(5000)},
	})
	add(workload{
		name: "SchedulingPreferredPodAffinity", upstream: "5000Nodes_5000Pods", floor: 90,
		nodes: s(5000), namespaces: sched2,
		init:    []podGroup{{"pod-with-preferred-pod-affinity.yaml", "sched-0", s(5000)}},
		measure: podGroup{"pod-with-preferred-pod-affinity.yaml", "sched-1", s(5000)},
	})
	add(workload{
		name: "SchedulingPreferredPodAntiAffinity", upstream: "5000Nodes_5000Pods", floor: 90,
		nodes: s(5000), namespaces: sched2,
		init:    []podGroup{{"pod-with-preferred-pod-anti-affinity.yaml", "sched-0", s(5000)}},
		measure: podGroup{"pod-with-preferred-pod-anti-affinity.yaml", "sched-1", s(5000)},
	})
	// 6000 nodes: every init and measured pod needs a node of its own (4000 + 2000).
	nsCount := s(100)
	add(workload{
		name: "SchedulingRequiredPodAntiAffinityWithNSSelector", upstream: "5000Nodes_2000Pods", floor: 24,
		nodes:      s(6000),
		namespaces: append(nsRange("init-ns", nsCount, "namespace-with-labels.yaml"), nsRange("measure-ns", 1, "namespace-with-labels.yaml")...),
		init:       podSets("pod-anti-affinity-ns-selector.yaml", "init-ns", nsCount, 40),
		measure:    podGroup{"pod-anti-affinity-ns-selector.yaml", "measure-ns-0", s(2000)},
	})
	add(workload{
		name: "SchedulingPreferredAffinityWithNSSelector", upstream: "5000Nodes_5000Pods", floor: 90,
		nodes:      s(5000),
		namespaces: append(nsRange("init-ns", nsCount, "namespace-with-labels.yaml"), nsRange("measure-ns", 1, "namespace-with-labels.yaml")...),
		init:       podSets("pod-preferred-affinity-ns-selector.yaml", "init-ns", nsCount, 50),
		measure:    podGroup{"pod-preferred-affinity-ns-selector.yaml", "measure-ns-0", s(5000)},
	})
	// The measured createPods names no namespace: scheduler_perf then uses namespace-<op index>,
	// the seventh op's.
	add(workload{
		name: "MixedSchedulingBasePod", upstream: "5000Nodes_5000Pods", floor: 140,
		nodes:      s(5000),
		namespaces: []namespaceSpec{{name: "sched-0"}, {name: "namespace-7"}},
		init: []podGroup{
			{"pod-default.yaml", "sched-0", s(2000)},
			{"pod-with-pod-affinity.yaml", "sched-0", s(2000)},
			{"pod-with-pod-anti-affinity.yaml", "sched-0", s(2000)},
			{"pod-with-preferred-pod-affinity.yaml", "sched-0", s(2000)},
			{"pod-with-preferred-pod-anti-affinity.yaml", "sched-0", s(2000)},
		},
		measure: podGroup{"pod-default.yaml", "namespace-7", s(5000)},
	})
	return out
}

// workloadOrder is the order the brief lists them in; short names are accepted on -workloads.
var workloadOrder = []string{
	"SchedulingPodAntiAffinity",
	"SchedulingPodAffinity",
	"SchedulingPreferredPodAffinity",
	"SchedulingPreferredPodAntiAffinity",
	"SchedulingRequiredPodAntiAffinityWithNSSelector",
	"SchedulingPreferredAffinityWithNSSelector",
	"MixedSchedulingBasePod",
}

func resolveWorkloadName(name string) (string, error) {
	for _, full := range workloadOrder {
		if name == full || "Scheduling"+name == full {
			return full, nil
		}
	}
	return "", fmt.Errorf("unknown workload %q (one of %s)", name, strings.Join(workloadOrder, ", "))
}

// upstreamDir is scheduler_perf's directory in the module cache.
func upstreamDir() (string, error) {
	if dir := os.Getenv("SX_SCHEDULER_PERF"); dir != "" {
		return dir, nil
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %v (set SX_SCHEDULER_PERF)", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "k8s.io", "kubernetes@v1.37.2", "test", "integration", "scheduler_perf")
	if _, err := os.Stat(filepath.Join(dir, "templates")); err != nil {
		return "", fmt.Errorf("%s: %v (run `go mod download k8s.io/kubernetes` in test/e2e, or set SX_SCHEDULER_PERF)", dir, err)
	}
	return dir, nil
}

// templates reads upstream's pod and namespace templates.
type templates struct{ dir string }

func (t templates) pod(file string) (*corev1.Pod, error) {
	var pod corev1.Pod
	if err := t.read(file, &pod); err != nil {
		return nil, err
	}
	return &pod, nil
}

func (t templates) namespace(file string) (*corev1.Namespace, error) {
	var ns corev1.Namespace
	if err := t.read(file, &ns); err != nil {
		return nil, err
	}
	return &ns, nil
}

func (t templates) read(file string, into any) error {
	data, err := os.ReadFile(filepath.Join(t.dir, "templates", file))
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		return fmt.Errorf("%s: %v", file, err)
	}
	return nil
}
