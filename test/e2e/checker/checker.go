// Package checker judges placements from the API server's final state: every pod of the
// workloads bound, and no required inter-pod affinity or anti-affinity term broken. It is
// written apart from the extender, in another language and from the API's documented
// semantics, so that a mistake in one is not the other's: it shares no code, no tables and no
// fixtures with the C++ plugin it checks.
//
// The semantics, for a pod P on node N, where "matching pods" of a term are the other pods
// that count (bound, not Succeeded or Failed) in the term's namespaces whose labels its
// labelSelector selects:
//
//   - a required affinity term holds when a matching pod runs on a node with N's value of
//     the topology key; or, when no pod matches the term anywhere, when P matches it itself
//     (the first pod of a group that is co-located with itself);
//   - a required anti-affinity term holds when no matching pod runs on a node with N's value
//     of the topology key (a node without the key is in no domain).
//
// The term's namespaces are its namespaces list and those its namespaceSelector selects (an
// empty selector selects all), or P's own when both are empty. A nil labelSelector selects
// nothing. matchLabelKeys and mismatchLabelKeys are not read: the API server merged them into
// the labelSelector when it created the pod.
package checker

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Violation is one broken required term.
type Violation struct {
	Pod    string // namespace/name
	Node   string
	Term   string // "affinity[i]" or "anti-affinity[i]"
	Reason string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s on %s: %s %s", v.Pod, v.Node, v.Term, v.Reason)
}

// Report is what Check found.
type Report struct {
	Checked    int      // pods that count and whose terms were evaluated
	Unbound    []string // pods without a node (namespace/name)
	Violations []Violation
}

// Check evaluates every pod's required terms against the others.
func Check(pods []corev1.Pod, nodes []corev1.Node, namespaces []corev1.Namespace) Report {
	nodeLabels := map[string]map[string]string{}
	for _, n := range nodes {
		nodeLabels[n.Name] = n.Labels
	}
	namespaceLabels := map[string]map[string]string{}
	for _, ns := range namespaces {
		namespaceLabels[ns.Name] = ns.Labels
	}
	var report Report
	var placed []*corev1.Pod
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		if p.Spec.NodeName == "" {
			report.Unbound = append(report.Unbound, key(p))
			continue
		}
		placed = append(placed, p)
	}
	sort.Strings(report.Unbound)
	c := checker{nodes: nodeLabels, namespaces: namespaceLabels, pods: placed}
	for _, p := range placed {
		report.Checked++
		report.Violations = append(report.Violations, c.violations(p)...)
	}
	return report
}

type checker struct {
	nodes      map[string]map[string]string
	namespaces map[string]map[string]string
	pods       []*corev1.Pod
}

func (c checker) violations(p *corev1.Pod) []Violation {
	affinity := p.Spec.Affinity
	if affinity == nil {
		return nil
	}
	var out []Violation
	fail := func(term, reason string) {
		out = append(out, Violation{Pod: key(p), Node: p.Spec.NodeName, Term: term, Reason: reason})
	}
	if affinity.PodAffinity != nil {
		terms := affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		for i, term := range terms {
			name := fmt.Sprintf("affinity[%d]", i)
			value, ok := c.nodes[p.Spec.NodeName][term.TopologyKey]
			if !ok {
				fail(name, fmt.Sprintf("node has no label %s", term.TopologyKey))
				continue
			}
			matches, err := c.matching(p, term)
			if err != nil {
				fail(name, err.Error())
				continue
			}
			if len(matches) == 0 {
				if !c.selects(p, term, p) {
					fail(name, "no pod matches the term, and the pod does not match it itself")
				}
				continue
			}
			if !c.anyIn(matches, term.TopologyKey, value) {
				fail(name, fmt.Sprintf("%d matching pod(s), none where %s=%s", len(matches), term.TopologyKey, value))
			}
		}
	}
	if affinity.PodAntiAffinity != nil {
		for i, term := range affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			name := fmt.Sprintf("anti-affinity[%d]", i)
			value, ok := c.nodes[p.Spec.NodeName][term.TopologyKey]
			if !ok {
				continue
			}
			matches, err := c.matching(p, term)
			if err != nil {
				fail(name, err.Error())
				continue
			}
			for _, q := range matches {
				if v, ok := c.nodes[q.Spec.NodeName][term.TopologyKey]; ok && v == value {
					fail(name, fmt.Sprintf("%s shares %s=%s", key(q), term.TopologyKey, value))
				}
			}
		}
	}
	return out
}

// matching is every other placed pod the term selects.
func (c checker) matching(p *corev1.Pod, term corev1.PodAffinityTerm) ([]*corev1.Pod, error) {
	if _, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err != nil {
		return nil, fmt.Errorf("labelSelector: %v", err)
	}
	if _, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector); err != nil {
		return nil, fmt.Errorf("namespaceSelector: %v", err)
	}
	var out []*corev1.Pod
	for _, q := range c.pods {
		if q.UID != p.UID && c.selects(p, term, q) {
			out = append(out, q)
		}
	}
	return out, nil
}

// selects says whether the term of owner selects pod q (both its namespace and its labels).
func (c checker) selects(owner *corev1.Pod, term corev1.PodAffinityTerm, q *corev1.Pod) bool {
	if term.LabelSelector == nil {
		return false
	}
	selector, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil || !selector.Matches(labels.Set(q.Labels)) {
		return false
	}
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		return q.Namespace == owner.Namespace
	}
	for _, ns := range term.Namespaces {
		if ns == q.Namespace {
			return true
		}
	}
	if term.NamespaceSelector == nil {
		return false
	}
	nsSelector, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	return err == nil && nsSelector.Matches(labels.Set(c.namespaces[q.Namespace]))
}

func (c checker) anyIn(pods []*corev1.Pod, topologyKey, value string) bool {
	for _, q := range pods {
		if v, ok := c.nodes[q.Spec.NodeName][topologyKey]; ok && v == value {
			return true
		}
	}
	return false
}

func key(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// CheckCluster lists the cluster's pods, nodes and namespaces and checks them.
func CheckCluster(ctx context.Context, client kubernetes.Interface) (Report, error) {
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return Report{}, err
	}
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return Report{}, err
	}
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return Report{}, err
	}
	return Check(pods.Items, nodes.Items, namespaces.Items), nil
}
