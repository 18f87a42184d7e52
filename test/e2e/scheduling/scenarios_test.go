package scheduling

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"scheduler-extender/test/e2e/framework"
)

// run is one scenario's workloads against an installation.
type run struct {
	*testing.T
	ctx        context.Context
	config     configuration
	release    *framework.Release
	namespaces []string
}

// namespace creates a namespace for the scenario's workloads, with labels, named after the
// installation so that each scenario starts with fresh ones; it is deleted, with its pods,
// when the scenario ends.
func (r *run) namespace(name string, labels map[string]string) string {
	r.Helper()
	name = r.release.Name + "-" + name
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if _, err := env.Client.CoreV1().Namespaces().Create(r.ctx, ns, metav1.CreateOptions{}); err != nil {
		r.Fatal(err)
	}
	r.namespaces = append(r.namespaces, name)
	return name
}

func (r *run) create(d *framework.Deployment) *framework.Deployment {
	r.Helper()
	if err := d.Create(r.ctx, env.Client); err != nil {
		r.Fatalf("creating deployment %s/%s: %v", d.Namespace, d.Name, err)
	}
	return d
}

// bound waits until the Deployment's pods are all bound and returns them.
func (r *run) bound(d *framework.Deployment) []corev1.Pod {
	r.Helper()
	pods, err := framework.WaitForPods(r.ctx, env.Client, d.Namespace, d.Selector(), int(*d.Spec.Replicas), time.Minute)
	if err != nil {
		r.Fatal(err)
	}
	return pods
}

// judge checks the cluster's final state: no required term broken anywhere, and one
// successful Binding for each of the scenario's pods, created by whoever binds in the
// installation's configuration.
func (r *run) judge() {
	r.Helper()
	framework.NoViolations(r.ctx, r.T, env.Client)
	binder := r.release.SchedulerUser
	if r.config.bind {
		binder = r.release.ExtenderUser
	}
	attempts, err := env.Bindings()
	if err != nil {
		r.Fatal(err)
	}
	bound := map[string]int{}
	for _, a := range attempts {
		if a.Code == 201 {
			bound[a.Pod]++
			if r.owns(a.Pod) && a.User != binder {
				r.Errorf("pod %s was bound by %s, not by %s", a.Pod, a.User, binder)
			}
		}
	}
	for _, ns := range r.namespaces {
		pods, err := env.Client.CoreV1().Pods(ns).List(r.ctx, metav1.ListOptions{})
		if err != nil {
			r.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && bound[ns+"/"+p.Name] != 1 {
				r.Errorf("pod %s/%s on %s has %d successful Bindings, want 1", ns, p.Name, p.Spec.NodeName, bound[ns+"/"+p.Name])
			}
		}
	}
}

func (r *run) owns(pod string) bool {
	ns, _, _ := strings.Cut(pod, "/")
	for _, n := range r.namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// cleanUp removes the scenario's workloads and waits until their pods are gone, so that the
// next scenario finds the nodes empty; the namespaces themselves go without waiting for the
// namespace controller.
func (r *run) cleanUp() {
	zero := int64(0)
	for _, ns := range r.namespaces {
		if err := env.Client.AppsV1().Deployments(ns).DeleteCollection(r.ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			r.Errorf("deleting the deployments of %s: %v", ns, err)
		}
		if err := env.Client.CoreV1().Pods(ns).DeleteCollection(r.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
			r.Errorf("deleting the pods of %s: %v", ns, err)
		}
	}
	err := wait.PollUntilContextTimeout(r.ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, ns := range r.namespaces {
			pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(pods.Items) > 0 {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		r.Errorf("pods of %v still there: %v", r.namespaces, err)
	}
	for _, ns := range r.namespaces {
		if err := env.Client.CoreV1().Namespaces().Delete(r.ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			r.Errorf("deleting namespace %s: %v", ns, err)
		}
	}
}

type scenario struct {
	name string
	run  func(r *run)
}

func scenarios() []scenario {
	return []scenario{
		{"anti-affinity per node, as many replicas as nodes", antiAffinityPerNode},
		{"co-location in one zone with itself", zoneColocation},
		{"preferred anti-affinity spreads one per node", preferredSpread},
		{"preferred affinity gathers in the zone of its peers", preferredGather},
		{"namespaceSelector across namespaces", namespaceSelector},
		{"matchLabelKeys pod-template-hash through a rollout", rollout},
		{"preemption for resources", preemptForResources},
		{"preemption for anti-affinity alone", preemptForAntiAffinity},
		{"preemption for resources and anti-affinity", preemptForResourcesAndAntiAffinity},
		{"a burst of 100 pods with every kind of term", burstOfEveryTerm},
	}
}

// TestScheduling installs the chart in each configuration and runs every scenario through it.
func TestScheduling(t *testing.T) {
	for i, c := range configurations() {
		t.Run(c.String(), func(t *testing.T) {
			ctx := context.Background()
			release := env.Install(ctx, t, fmt.Sprintf("sx%d", i), fmt.Sprintf("scheduling-%d", i), c.values(), c.mutualTLS)
			for _, s := range scenarios() {
				t.Run(s.name, func(t *testing.T) {
					r := &run{T: t, ctx: ctx, config: c, release: release}
					defer r.cleanUp()
					s.run(r)
					r.judge()
				})
			}
		})
	}
}

// antiAffinityPerNode: one replica per node, as many replicas as there are nodes; the last
// ones fit only where nothing of theirs runs yet.
func antiAffinityPerNode(r *run) {
	ns := r.namespace("per-node", nil)
	d := r.create(framework.NewDeployment(ns, "web", r.release.Scheduler, int32(shape.Nodes)).
		RequiredAntiAffinity(framework.Term(framework.Hostname, map[string]string{"app": "web"})))
	pods := r.bound(d)
	seen := map[string]bool{}
	for _, node := range framework.NodesOf(pods) {
		if seen[node] {
			r.Errorf("two replicas on %s", node)
		}
		seen[node] = true
	}
}
