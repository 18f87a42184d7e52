// Package faults breaks the real components in the middle of scheduling bursts: kube-apiserver
// restarted, etcd compacted past the extender's watch, the extender killed, the leader of two
// kube-scheduler + extender pods killed. Each burst must end with every pod bound and no
// required term broken, judged from the API server's final state.
//
// The chart runs in exclusive mode (kube-scheduler's InterPodAffinity off, bindVerb on): the
// extender alone keeps the required terms there, so a fault that made it answer wrongly would
// show as a violation.
package faults

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"scheduler-extender/test/e2e/framework"
)

var env *framework.Environment

var shape = framework.Shape{Nodes: 8, Zones: 2}

func TestMain(m *testing.M) {
	os.Exit(framework.RunSuite(m, shape, &env))
}

func exclusive(extra map[string]any) map[string]any {
	values := map[string]any{
		"registration": map[string]any{"bindVerb": "bind", "exclusiveInterPodAffinity": true},
		"extender":     map[string]any{"verbosity": 2},
	}
	for k, v := range extra {
		values[k] = v
	}
	return values
}

func app(name string) map[string]string { return map[string]string{"app": name} }

// burst creates, in a fresh namespace, workloads with every kind of required and preferred
// term, 72 pods in all, and returns them.
func burst(ctx context.Context, t *testing.T, scheduler, namespace string) []*framework.Deployment {
	t.Helper()
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	workloads := []*framework.Deployment{
		framework.NewDeployment(namespace, "spread", scheduler, int32(shape.Nodes)).
			RequiredAntiAffinity(framework.Term(framework.Hostname, app("spread"))),
		framework.NewDeployment(namespace, "group", scheduler, 6).
			RequiredAffinity(framework.Term(framework.Zone, app("group"))),
		framework.NewDeployment(namespace, "near-group", scheduler, 4).
			RequiredAffinity(framework.Term(framework.Zone, app("group"))).
			RequiredAntiAffinity(framework.Term(framework.Hostname, app("near-group"))),
		framework.NewDeployment(namespace, "free", scheduler, 54).
			PreferredAntiAffinity(50, framework.Term(framework.Hostname, app("free"))).
			PreferredAffinity(10, framework.Term(framework.Zone, app("group"))),
	}
	for _, d := range workloads {
		if err := d.Create(ctx, env.Client); err != nil {
			t.Fatal(err)
		}
	}
	return workloads
}

// boundCount is how many pods of the namespace are bound.
func boundCount(ctx context.Context, namespace string) int {
	pods, err := env.Client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// midBurst waits until at least n pods of the namespace are bound (the burst is under way).
func midBurst(ctx context.Context, t *testing.T, namespace string, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		return boundCount(ctx, namespace) >= n, nil
	})
	if err != nil {
		t.Fatalf("the burst did not start: %d pods bound", boundCount(ctx, namespace))
	}
}

// judge waits for every workload to be bound, then checks the cluster's final state.
func judge(ctx context.Context, t *testing.T, workloads []*framework.Deployment, timeout time.Duration) {
	t.Helper()
	for _, d := range workloads {
		if _, err := framework.WaitForPods(ctx, env.Client, d.Namespace, d.Selector(), int(*d.Spec.Replicas), timeout); err != nil {
			t.Error(err)
		}
	}
	report := framework.NoViolations(ctx, t, env.Client)
	t.Logf("%d pods checked, %d violations", report.Checked, len(report.Violations))
}

// extenderPod is the release's (first) running extender pod.
func extenderPod(ctx context.Context, t *testing.T, r *framework.Release) *corev1.Pod {
	t.Helper()
	pods, err := r.Pods(ctx, r.ExtenderComponent())
	if err != nil || len(pods) == 0 {
		t.Fatalf("no running extender pod: %v", err)
	}
	return &pods[0]
}

// cacheMatchesAPIServer waits until the extender's cache holds the nodes and the pods that
// count (bound, not finished) that the API server holds.
func cacheMatchesAPIServer(ctx context.Context, t *testing.T, r *framework.Release) {
	t.Helper()
	var why string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pod := extenderPod(ctx, t, r)
		metrics, err := r.Probe(pod).Metrics(ctx)
		if err != nil {
			why = err.Error()
			return false, nil
		}
		pods, err := env.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		nodes, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		counted := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				counted++
			}
		}
		cachedPods := framework.Sum(metrics, "scheduler_extender_cache_pods")
		cachedNodes := framework.Sum(metrics, "scheduler_extender_cache_nodes")
		why = fmt.Sprintf("cache: %v pods, %v nodes; API server: %d pods, %d nodes", cachedPods, cachedNodes, counted, len(nodes.Items))
		return int(cachedPods) == counted && int(cachedNodes) == len(nodes.Items), nil
	})
	if err != nil {
		t.Errorf("the extender's cache does not match the API server: %s", why)
	}
}

// TestAPIServerRestartMidBurst: kube-apiserver goes away and comes back while kube-scheduler
// and the extender place a burst. Their informers resume from where they were, nothing is
// lost, and no placement breaks a term.
func TestAPIServerRestartMidBurst(t *testing.T) {
	ctx := context.Background()
	r := env.Install(ctx, t, "apiserver", "fault-apiserver", exclusive(nil), false)
	workloads := burst(ctx, t, r.Scheduler, "burst-apiserver")
	midBurst(ctx, t, "burst-apiserver", 10)
	if err := env.Restart("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	judge(ctx, t, workloads, 3*time.Minute)
	cacheMatchesAPIServer(ctx, t, r)
}

// TestEtcdCompactedPastTheWatch: while the extender is frozen, kube-apiserver restarts (its
// watch cache then starts at the current resourceVersion), pods come, and etcd compacts its
// history past them, so the extender's watch resumes from a resourceVersion that no longer
// exists: 410 Gone. It relists, and its cache equals the API server's state again, which the
// next placements depend on.
func TestEtcdCompactedPastTheWatch(t *testing.T) {
	ctx := context.Background()
	r := env.Install(ctx, t, "compaction", "fault-compaction", exclusive(nil), false)
	pod := extenderPod(ctx, t, r)
	before, err := r.Probe(pod).Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Pods bound by the test itself (nodeName set), one per node, that the extender only
	// learns of by its relist.
	namespace := "frozen"
	if _, err := env.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Frozen first, and kube-apiserver restarted under it, so that the changes below never
	// reach its old watch's socket: it learns of them from its next watch or its relist only.
	if err := env.Agent.Signal(pod, "extender", syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if err := env.Restart("kube-apiserver"); err != nil {
		t.Fatal(err)
	}
	for i := range shape.Nodes {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("guard-%d", i), Namespace: namespace, Labels: app("guard")},
			Spec: corev1.PodSpec{
				NodeName:   fmt.Sprintf("node-%d", i),
				Containers: []corev1.Container{{Name: "app", Image: framework.PauseImage}},
			},
		}
		if _, err := env.Client.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	revision, err := env.Compact(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Agent.Signal(pod, "extender", syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	t.Logf("etcd compacted at revision %d", revision)
	cacheMatchesAPIServer(ctx, t, r)
	after, err := r.Probe(pod).Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pods := `resource="pods"`
	if framework.Sum(after, "scheduler_extender_watch_restarts_total", pods, `reason="gone"`) <=
		framework.Sum(before, "scheduler_extender_watch_restarts_total", pods, `reason="gone"`) {
		t.Errorf("the pods informer never heard 410 Gone: %v", framework.Sum(after, "scheduler_extender_watch_restarts_total", pods))
	}
	// Every node now holds a guard, which this workload's pods refuse to share a node with:
	// an extender that had missed the guards would place them.
	avoid := framework.NewDeployment("frozen", "avoid", r.Scheduler, 4).
		RequiredAntiAffinity(framework.Term(framework.Hostname, app("guard")))
	if err := avoid.Create(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	if err := framework.WaitUnschedulable(ctx, env.Client, avoid, time.Minute); err != nil {
		t.Error(err)
	}
	framework.NoViolations(ctx, t, env.Client)
}

// TestExtenderRestartMidBurst: the extender dies while kube-scheduler places a burst. With
// ignorable: false, kube-scheduler's calls fail until it is back: the pods wait and are
// then placed, never placed without it.
func TestExtenderRestartMidBurst(t *testing.T) {
	ctx := context.Background()
	r := env.Install(ctx, t, "crash", "fault-crash", exclusive(nil), false)
	workloads := burst(ctx, t, r.Scheduler, "burst-crash")
	midBurst(ctx, t, "burst-crash", 10)
	if err := env.Agent.Signal(extenderPod(ctx, t, r), "extender", syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	judge(ctx, t, workloads, 3*time.Minute)
}

// TestLeaderFailover: two kube-scheduler + extender pods under leader election; the leader's
// pod is killed in the middle of a burst, the other takes the lease over and finishes it.
func TestLeaderFailover(t *testing.T) {
	ctx := context.Background()
	r := env.Install(ctx, t, "ha", "fault-ha", exclusive(map[string]any{"replicas": 2}), false)
	leader := func() string {
		lease, err := env.Client.CoordinationV1().Leases(r.Namespace).Get(ctx, r.Scheduler, metav1.GetOptions{})
		if err != nil || lease.Spec.HolderIdentity == nil {
			return ""
		}
		return *lease.Spec.HolderIdentity
	}
	var holder string
	if err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		holder = leader()
		return holder != "", nil
	}); err != nil {
		t.Fatal("no kube-scheduler took the lease")
	}
	workloads := burst(ctx, t, r.Scheduler, "burst-ha")
	midBurst(ctx, t, "burst-ha", 10)
	// The holder identity is the pod's hostname (its name) and a unique suffix.
	pods, err := r.Pods(ctx, "scheduler")
	if err != nil {
		t.Fatal(err)
	}
	// Killed, not stopped: no chance to give the lease back; the pod is then removed, as a
	// node's failure would leave it, and its ReplicaSet starts another.
	killed := ""
	zero := int64(0)
	for i := range pods {
		p := &pods[i]
		if len(holder) > len(p.Name) && holder[:len(p.Name)+1] == p.Name+"_" {
			killed = p.Name
			for _, c := range []string{"kube-scheduler", "extender"} {
				if err := env.Agent.Signal(p, c, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
			if err := env.Client.CoreV1().Pods(r.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if killed == "" {
		t.Fatalf("no pod of %v holds the lease (%s)", pods, holder)
	}
	judge(ctx, t, workloads, 3*time.Minute)
	if now := leader(); now == holder {
		t.Errorf("the lease is still held by %s, whose pod was killed", now)
	}
}
