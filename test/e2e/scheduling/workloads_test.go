package scheduling

import (
	"context"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"scheduler-extender/test/e2e/framework"
)

func app(name string) map[string]string { return map[string]string{"app": name} }

// zones maps each node to its zone.
func (r *run) zones() map[string]string {
	r.Helper()
	nodes, err := env.Client.CoreV1().Nodes().List(r.ctx, metav1.ListOptions{})
	if err != nil {
		r.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range nodes.Items {
		out[n.Name] = n.Labels[framework.Zone]
	}
	return out
}

// count is how many of the pods run in each zone (or on each node, with identity).
func count(pods []corev1.Pod, domain func(node string) string) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		out[domain(p.Spec.NodeName)]++
	}
	return out
}

// zoneColocation: replicas that must share a zone with each other end up in one zone.
func zoneColocation(r *run) {
	ns := r.namespace("colocated", nil)
	d := r.create(framework.NewDeployment(ns, "group", r.release.Scheduler, 6).
		RequiredAffinity(framework.Term(framework.Zone, app("group"))))
	zones := r.zones()
	if perZone := count(r.bound(d), func(n string) string { return zones[n] }); len(perZone) != 1 {
		r.Errorf("the group spread over zones: %v", perZone)
	}
}

// preferredSpread: replicas that prefer not to share a node, as many as there are nodes,
// take one node each: the ideal spread.
func preferredSpread(r *run) {
	ns := r.namespace("spread", nil)
	d := r.create(framework.NewDeployment(ns, "spread", r.release.Scheduler, int32(shape.Nodes)).
		PreferredAntiAffinity(100, framework.Term(framework.Hostname, app("spread"))))
	for node, n := range count(r.bound(d), func(n string) string { return n }) {
		if n > 1 {
			r.Errorf("%d replicas on %s, want one per node", n, node)
		}
	}
}

// preferredGather: replicas that prefer the zone of a group's pods join it.
func preferredGather(r *run) {
	ns := r.namespace("gather", nil)
	cache := r.create(framework.NewDeployment(ns, "cache", r.release.Scheduler, 2).
		RequiredAffinity(framework.Term(framework.Zone, app("cache"))))
	zones := r.zones()
	cacheZone := zones[r.bound(cache)[0].Spec.NodeName]
	web := r.create(framework.NewDeployment(ns, "web", r.release.Scheduler, 4).
		PreferredAffinity(100, framework.Term(framework.Zone, app("cache"))))
	perZone := count(r.bound(web), func(n string) string { return zones[n] })
	if perZone[cacheZone] != 4 {
		r.Errorf("web replicas per zone %v, want all 4 in the cache's zone %s", perZone, cacheZone)
	}
}

// namespaceSelector: a term reaches the pods of the namespaces its namespaceSelector picks,
// and only those. Databases of the "data" team sit in one zone; a decoy with the same labels,
// in a namespace outside the team, is kept in the other zone; the team's app must join the
// team's databases in their zone (affinity through the selector) and stay off every node
// running a database of any namespace (anti-affinity through an empty selector).
func namespaceSelector(r *run) {
	team := map[string]string{"team": "data"}
	dbNS := r.namespace("data-db", team)
	appNS := r.namespace("data-app", team)
	otherNS := r.namespace("elsewhere", nil)
	db := r.create(framework.NewDeployment(dbNS, "db", r.release.Scheduler, 2).
		RequiredAffinity(framework.Term(framework.Zone, app("db"))))
	zones := r.zones()
	dbZone := zones[r.bound(db)[0].Spec.NodeName]

	awayFromTeam := framework.Term(framework.Zone, app("db"))
	awayFromTeam.NamespaceSelector = &metav1.LabelSelector{MatchLabels: team}
	decoy := r.create(framework.NewDeployment(otherNS, "db", r.release.Scheduler, 2).RequiredAntiAffinity(awayFromTeam))
	decoyPods := r.bound(decoy)

	withTeam := framework.Term(framework.Zone, app("db"))
	withTeam.NamespaceSelector = &metav1.LabelSelector{MatchLabels: team}
	offEveryDB := framework.Term(framework.Hostname, app("db"))
	offEveryDB.NamespaceSelector = &metav1.LabelSelector{}
	a := r.create(framework.NewDeployment(appNS, "app", r.release.Scheduler, 2).
		RequiredAffinity(withTeam).RequiredAntiAffinity(offEveryDB))
	for _, p := range r.bound(a) {
		if zones[p.Spec.NodeName] != dbZone {
			r.Errorf("app pod %s in zone %s, want the team's databases' zone %s", p.Name, zones[p.Spec.NodeName], dbZone)
		}
	}
	for _, p := range decoyPods {
		if zones[p.Spec.NodeName] == dbZone {
			r.Errorf("decoy %s in the team's zone %s", p.Name, dbZone)
		}
	}
}

// rollout: replicas that must not share a node with their own revision (matchLabelKeys:
// pod-template-hash), as many as there are nodes, roll to a new revision: the new pods may
// join nodes of the old revision's, so the rollout completes, and once it has, the new
// revision has one pod per node.
func rollout(r *run) {
	ns := r.namespace("rollout", nil)
	term := framework.Term(framework.Hostname, app("roll"))
	term.MatchLabelKeys = []string{"pod-template-hash"}
	d := r.create(framework.NewDeployment(ns, "roll", r.release.Scheduler, int32(shape.Nodes)).RequiredAntiAffinity(term))
	r.bound(d)
	if out, err := env.Kubectl(r.ctx, "rollout", "restart", "deployment/roll", "--namespace", ns); err != nil {
		r.Fatalf("%v\n%s", err, out)
	}
	if out, err := env.Kubectl(r.ctx, "rollout", "status", "deployment/roll", "--namespace", ns, "--timeout=3m"); err != nil {
		r.Fatalf("the rollout did not complete: %v\n%s", err, out)
	}
	pods := r.bound(d)
	hashes := map[string]bool{}
	for _, p := range pods {
		hashes[p.Labels["pod-template-hash"]] = true
		selector := p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].LabelSelector
		if !strings.Contains(selector.String(), "pod-template-hash") {
			r.Errorf("pod %s: the API server did not merge matchLabelKeys into %v", p.Name, selector)
		}
	}
	if len(hashes) != 1 {
		r.Errorf("pods of %d revisions after the rollout: %v", len(hashes), hashes)
	}
	for node, n := range count(pods, func(n string) string { return n }) {
		if n > 1 {
			r.Errorf("%d pods of the new revision on %s", n, node)
		}
	}
}

// Priority classes of the preemption scenarios.
const (
	lowPriority  = "sx-e2e-low"
	highPriority = "sx-e2e-high"
)

func (r *run) priorityClasses() {
	r.Helper()
	for name, value := range map[string]int32{lowPriority: 100, highPriority: 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
		if _, err := env.Client.SchedulingV1().PriorityClasses().Create(r.ctx, pc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			r.Fatal(err)
		}
	}
}

// running lists the pods of a Deployment that are bound and not terminating.
func (r *run) running(d *framework.Deployment) []corev1.Pod {
	r.Helper()
	list, err := env.Client.CoreV1().Pods(d.Namespace).List(r.ctx, metav1.ListOptions{LabelSelector: d.Selector().String()})
	if err != nil {
		r.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// preemptForResources: every node holds a low-priority pod of 3 CPUs (of 4); two high-priority
// pods of 3 CPUs fit only once two of them go. kube-scheduler's dry run picks the victims; /preempt keeps the candidates.
func preemptForResources(r *run) {
	r.priorityClasses()
	ns := r.namespace("preempt-resources", nil)
	low := r.create(framework.NewDeployment(ns, "low", r.release.Scheduler, int32(shape.Nodes)).CPU("3").Priority(lowPriority))
	r.bound(low)
	high := r.create(framework.NewDeployment(ns, "high", r.release.Scheduler, 2).CPU("3").Priority(highPriority))
	r.bound(high)
	if n := len(r.running(low)); n != shape.Nodes-2 {
		r.Errorf("%d low-priority pods run, want %d: two preempted", n, shape.Nodes-2)
	}
}

// blockedNode is where the anti-affinity preemption scenarios pin their pods.
const blockedNode = "node-7"

// newBlocker is a low-priority pod pinned to blockedNode that the scenario's high-priority pod
// may not share a node with. It refuses that pod in turn: a pod without terms of its own would
// be scheduled onto the node the preemptor is nominated to as soon as its ReplicaSet replaced
// it, since upstream's InterPodAffinity skips its Filter (and with it the nominated pod's
// anti-affinity) for a pod with no terms when no assigned pod has required anti-affinity.
func newBlocker(namespace, scheduler string) *framework.Deployment {
	return framework.NewDeployment(namespace, "blocker", scheduler, 1).OnNode(blockedNode).Priority(lowPriority).
		RequiredAntiAffinity(framework.Term(framework.Hostname, app("high")))
}

// preemptForAntiAffinity: a high-priority pod pinned to a node whose only obstacle is a
// low-priority pod that its required anti-affinity refuses. With kube-scheduler's own
// InterPodAffinity, its dry run picks that pod as the victim. With exclusive affinity,
// kube-scheduler v1.37 finds no victim on the node (none is needed for its own filters),
// drops it as a candidate before calling /preempt, and the pod stays pending: the chart
// documents this.
func preemptForAntiAffinity(r *run) {
	r.priorityClasses()
	ns := r.namespace("preempt-affinity", nil)
	blocker := r.create(newBlocker(ns, r.release.Scheduler))
	r.bound(blocker)
	high := r.create(framework.NewDeployment(ns, "high", r.release.Scheduler, 1).OnNode(blockedNode).Priority(highPriority).
		RequiredAntiAffinity(framework.Term(framework.Hostname, app("blocker"))))
	if !r.config.exclusive {
		r.bound(high)
		if n := len(r.running(blocker)); n != 0 {
			r.Errorf("%d blockers still run", n)
		}
		return
	}
	// kube-scheduler has tried, and said why it could not preempt; nothing was.
	r.expectEvent(ns, "high", "expected at least one victim pod on node")
	if n := len(r.running(high)); n != 0 {
		r.Errorf("the high-priority pod was placed; kube-scheduler now preempts for affinity alone in exclusive mode: update docs/registering.md and the chart's notes")
	}
	if n := len(r.running(blocker)); n != 1 {
		r.Errorf("%d blockers run, want 1 (nothing preempted)", n)
	}
}

// preemptForResourcesAndAntiAffinity: the pinned high-priority pod needs a low-priority
// pod's CPU and must not share the node with another low-priority pod. With exclusive
// affinity, kube-scheduler's dry run names only the first as a victim; /preempt adds the
// second, as upstream's SelectVictimsOnNode would have.
func preemptForResourcesAndAntiAffinity(r *run) {
	r.priorityClasses()
	ns := r.namespace("preempt-both", nil)
	filler := r.create(framework.NewDeployment(ns, "filler", r.release.Scheduler, 1).OnNode(blockedNode).CPU("3").Priority(lowPriority))
	blocker := r.create(newBlocker(ns, r.release.Scheduler))
	r.bound(filler)
	r.bound(blocker)
	high := r.create(framework.NewDeployment(ns, "high", r.release.Scheduler, 1).OnNode(blockedNode).CPU("2").Priority(highPriority).
		RequiredAntiAffinity(framework.Term(framework.Hostname, app("blocker"))))
	r.bound(high)
	if n := len(r.running(filler)) + len(r.running(blocker)); n != 0 {
		r.Errorf("%d low-priority pods still run on %s, want both preempted", n, blockedNode)
	}
}

// expectEvent waits for an event about a pod of the Deployment whose message contains text.
func (r *run) expectEvent(namespace, deployment, text string) {
	r.Helper()
	var seen []string
	err := wait.PollUntilContextTimeout(r.ctx, 500*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		events, err := env.Client.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		seen = seen[:0]
		for _, e := range events.Items {
			if strings.HasPrefix(e.InvolvedObject.Name, deployment+"-") {
				seen = append(seen, e.Reason+": "+e.Message)
				if strings.Contains(e.Message, text) {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		sort.Strings(seen)
		r.Errorf("no event of %s/%s says %q; events: %s", namespace, deployment, text, strings.Join(seen, " | "))
	}
}

// burstOfEveryTerm: 100 pods of five Deployments created at once, with required and
// preferred affinity and anti-affinity, per node and per zone, within a namespace and across
// namespaces through a namespaceSelector; every one must be placed.
//
// The pods that follow the group across namespaces ("cross") are refused until a group pod
// runs. With exclusive affinity the extender refuses them, and kube-scheduler retries a pod
// refused by an extender on any cluster event: they go first, before any group pod exists,
// and must still be placed. kube-scheduler v1.37's own InterPodAffinity retries a pod it
// refused only when a new pod matches the terms as it reads them without their
// namespaceSelector (kubernetes/kubernetes#141953), so they would wait for its five-minute
// sweep: with the in-tree plugin on, they come once the group runs.
func burstOfEveryTerm(r *run) {
	team := map[string]string{"team": "burst"}
	ns := r.namespace("burst", team)
	other := r.namespace("burst-other", team)
	inTeam := framework.Term(framework.Zone, app("group"))
	inTeam.NamespaceSelector = &metav1.LabelSelector{MatchLabels: team}
	cross := framework.NewDeployment(other, "cross", r.release.Scheduler, 6).RequiredAffinity(inTeam)
	group := framework.NewDeployment(ns, "group", r.release.Scheduler, 10).
		RequiredAffinity(framework.Term(framework.Zone, app("group")))
	workloads := []*framework.Deployment{
		framework.NewDeployment(ns, "spread", r.release.Scheduler, int32(shape.Nodes)).
			RequiredAntiAffinity(framework.Term(framework.Hostname, app("spread"))),
		group,
		framework.NewDeployment(ns, "near", r.release.Scheduler, 4).
			RequiredAffinity(framework.Term(framework.Zone, app("group"))).
			RequiredAntiAffinity(framework.Term(framework.Hostname, app("near"))),
		framework.NewDeployment(ns, "free", r.release.Scheduler, int32(100-shape.Nodes-10-4-6)).
			PreferredAntiAffinity(50, framework.Term(framework.Hostname, app("free"))).
			PreferredAffinity(20, framework.Term(framework.Zone, app("group"))),
	}
	if r.config.exclusive {
		r.create(cross)
	}
	for _, d := range workloads {
		r.create(d)
	}
	if !r.config.exclusive {
		r.bound(group)
		r.create(cross)
	}
	for _, d := range append(workloads, cross) {
		r.bound(d)
	}
}
