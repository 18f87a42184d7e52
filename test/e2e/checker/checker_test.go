package checker

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func node(name, zone string) corev1.Node {
	labels := map[string]string{"kubernetes.io/hostname": name}
	if zone != "" {
		labels["topology.kubernetes.io/zone"] = zone
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

type podBuilder struct{ corev1.Pod }

func pod(ns, name, nodeName string, labels map[string]string) *podBuilder {
	return &podBuilder{corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name), Labels: labels},
		Spec:       corev1.PodSpec{NodeName: nodeName},
	}}
}

func term(key string, selector map[string]string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}
}

func (b *podBuilder) affinity(t corev1.PodAffinityTerm) *podBuilder {
	if b.Spec.Affinity == nil {
		b.Spec.Affinity = &corev1.Affinity{}
	}
	if b.Spec.Affinity.PodAffinity == nil {
		b.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	a := b.Spec.Affinity.PodAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

func (b *podBuilder) antiAffinity(t corev1.PodAffinityTerm) *podBuilder {
	if b.Spec.Affinity == nil {
		b.Spec.Affinity = &corev1.Affinity{}
	}
	if b.Spec.Affinity.PodAntiAffinity == nil {
		b.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a := b.Spec.Affinity.PodAntiAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return b
}

func (b *podBuilder) phase(p corev1.PodPhase) *podBuilder { b.Status.Phase = p; return b }

const (
	host = "kubernetes.io/hostname"
	zone = "topology.kubernetes.io/zone"
)

var web = map[string]string{"app": "web"}

func TestCheck(t *testing.T) {
	nodes := []corev1.Node{node("n1", "z1"), node("n2", "z1"), node("n3", "z2"), node("bare", "")}
	namespaces := []corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"team": "x"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: map[string]string{"team": "x"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "c"}},
	}
	tests := []struct {
		name       string
		pods       []*podBuilder
		violations []string // pod and term of each violation, in order
		unbound    []string
	}{
		{
			name: "anti-affinity per host, spread",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(term(host, web)),
				pod("a", "w2", "n2", web).antiAffinity(term(host, web)),
			},
		},
		{
			name: "anti-affinity per host, two on one node break it both ways",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(term(host, web)),
				pod("a", "w2", "n1", web).antiAffinity(term(host, web)),
			},
			violations: []string{"a/w1 anti-affinity[0]", "a/w2 anti-affinity[0]"},
		},
		{
			name: "an existing pod's anti-affinity is broken by a pod without terms",
			pods: []*podBuilder{
				pod("a", "guard", "n1", nil).antiAffinity(term(zone, web)),
				pod("a", "w1", "n2", web),
			},
			violations: []string{"a/guard anti-affinity[0]"},
		},
		{
			name: "anti-affinity in another namespace does not count without namespaces",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(term(host, web)),
				pod("b", "w2", "n1", web),
			},
		},
		{
			name: "namespaceSelector reaches the other namespace",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(func() corev1.PodAffinityTerm {
					t := term(host, web)
					t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "x"}}
					return t
				}()),
				pod("b", "w2", "n1", web),
				pod("c", "w3", "n1", web),
			},
			violations: []string{"a/w1 anti-affinity[0]"},
		},
		{
			name: "an empty namespaceSelector selects every namespace",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(func() corev1.PodAffinityTerm {
					t := term(host, web)
					t.NamespaceSelector = &metav1.LabelSelector{}
					return t
				}()),
				pod("c", "w3", "n1", web),
			},
			violations: []string{"a/w1 anti-affinity[0]"},
		},
		{
			name: "affinity to a zone holds within the zone, not outside it",
			pods: []*podBuilder{
				pod("a", "cache", "n1", map[string]string{"app": "cache"}),
				pod("a", "w1", "n2", web).affinity(term(zone, map[string]string{"app": "cache"})),
				pod("a", "w2", "n3", web).affinity(term(zone, map[string]string{"app": "cache"})),
			},
			violations: []string{"a/w2 affinity[0]"},
		},
		{
			name: "the first pod of a self-affine group holds alone",
			pods: []*podBuilder{
				pod("a", "w1", "n3", web).affinity(term(zone, web)),
			},
		},
		{
			name: "a pod alone whose term selects others only breaks it",
			pods: []*podBuilder{
				pod("a", "w1", "n3", web).affinity(term(zone, map[string]string{"app": "cache"})),
			},
			violations: []string{"a/w1 affinity[0]"},
		},
		{
			name: "a self-affine group split over zones",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).affinity(term(zone, web)),
				pod("a", "w2", "n3", web).affinity(term(zone, web)),
			},
			violations: []string{"a/w1 affinity[0]", "a/w2 affinity[0]"},
		},
		{
			name: "affinity on a node without the topology key",
			pods: []*podBuilder{
				pod("a", "w1", "bare", web).affinity(term(zone, web)),
			},
			violations: []string{"a/w1 affinity[0]"},
		},
		{
			name: "anti-affinity on a node without the topology key is in no domain",
			pods: []*podBuilder{
				pod("a", "w1", "bare", web).antiAffinity(term(zone, web)),
				pod("a", "w2", "bare", web),
			},
		},
		{
			name: "finished pods do not count, unbound ones are reported",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(term(host, web)),
				pod("a", "done", "n1", web).phase(corev1.PodSucceeded),
				pod("a", "failed", "n1", web).phase(corev1.PodFailed),
				pod("a", "pending", "", web),
			},
			unbound: []string{"a/pending"},
		},
		{
			name: "a nil labelSelector selects nothing",
			pods: []*podBuilder{
				pod("a", "w1", "n1", web).antiAffinity(corev1.PodAffinityTerm{TopologyKey: host}),
				pod("a", "w2", "n1", web),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pods []corev1.Pod
			for _, p := range tt.pods {
				pods = append(pods, p.Pod)
			}
			report := Check(pods, nodes, namespaces)
			var got []string
			for _, v := range report.Violations {
				got = append(got, v.Pod+" "+v.Term)
			}
			if !reflect.DeepEqual(got, tt.violations) {
				t.Errorf("violations: got %v, want %v\n%v", got, tt.violations, report.Violations)
			}
			if !reflect.DeepEqual(report.Unbound, tt.unbound) {
				t.Errorf("unbound: got %v, want %v", report.Unbound, tt.unbound)
			}
		})
	}
}
