package differential

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// genAffinity draws a pod's inter-pod affinity: any mix of required and preferred affinity
// and anti-affinity terms, or none. Terms stay within what the API server's validation
// accepts, since the pods are those it would store.
func (g *generator) genAffinity(podLabels map[string]string) *corev1.Affinity {
	if g.chance(0.25) {
		return nil
	}
	a := &corev1.Affinity{}
	if g.chance(0.6) {
		a.PodAffinity = &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  g.genTerms(0.3),
			PreferredDuringSchedulingIgnoredDuringExecution: g.genWeightedTerms(),
		}
	}
	if g.chance(0.6) {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  g.genTerms(0.35),
			PreferredDuringSchedulingIgnoredDuringExecution: g.genWeightedTerms(),
		}
	}
	return a
}

// genTerms draws zero to two required terms, none with probability 1-p.
func (g *generator) genTerms(p float64) []corev1.PodAffinityTerm {
	if !g.chance(p) {
		return nil
	}
	terms := make([]corev1.PodAffinityTerm, 1+g.r.IntN(2))
	for i := range terms {
		terms[i] = g.genTerm()
	}
	return terms
}

func (g *generator) genWeightedTerms() []corev1.WeightedPodAffinityTerm {
	if !g.chance(0.5) {
		return nil
	}
	terms := make([]corev1.WeightedPodAffinityTerm, 1+g.r.IntN(3))
	for i := range terms {
		terms[i] = corev1.WeightedPodAffinityTerm{Weight: int32(1 + g.r.IntN(100)), PodAffinityTerm: g.genTerm()}
	}
	return terms
}

func (g *generator) genTerm() corev1.PodAffinityTerm {
	t := corev1.PodAffinityTerm{LabelSelector: g.genSelector()}
	switch x := g.r.Float64(); {
	case x < 0.4:
		t.TopologyKey = hostnameKey
	case x < 0.75:
		t.TopologyKey = zoneKey
	case x < 0.9:
		t.TopologyKey = rackKey
	default:
		t.TopologyKey = absentKey
	}
	if g.chance(0.3) {
		t.Namespaces = []string{g.pick(g.nss)}
		if g.chance(0.3) {
			t.Namespaces = append(t.Namespaces, g.pick(append(slices.Clone(g.nss), "ns-missing")))
		}
	}
	if g.chance(0.35) {
		t.NamespaceSelector = g.genNamespaceSelector()
	}
	if t.LabelSelector != nil {
		g.genLabelKeys(&t)
	}
	return t
}

// genSelector draws a pod label selector: nil (selects nothing), empty (selects every pod),
// or requirements over the pod label vocabulary.
func (g *generator) genSelector() *metav1.LabelSelector {
	switch x := g.r.Float64(); {
	case x < 0.05:
		return nil
	case x < 0.12:
		return &metav1.LabelSelector{}
	case x < 0.6:
		k := g.pick(podLabelKeys)
		return &metav1.LabelSelector{MatchLabels: map[string]string{k: g.pick(podLabelValues[k])}}
	}
	s := &metav1.LabelSelector{}
	for i, n := 0, 1+g.r.IntN(2); i < n; i++ {
		k := g.pick(podLabelKeys)
		e := metav1.LabelSelectorRequirement{Key: k}
		switch x := g.r.Float64(); {
		case x < 0.4:
			e.Operator = metav1.LabelSelectorOpIn
			e.Values = g.someValues(k)
		case x < 0.6:
			e.Operator = metav1.LabelSelectorOpNotIn
			e.Values = g.someValues(k)
		case x < 0.85:
			e.Operator = metav1.LabelSelectorOpExists
		default:
			e.Operator = metav1.LabelSelectorOpDoesNotExist
		}
		s.MatchExpressions = append(s.MatchExpressions, e)
	}
	return s
}

func (g *generator) someValues(key string) []string {
	values := slices.Clone(podLabelValues[key])
	g.r.Shuffle(len(values), func(i, j int) { values[i], values[j] = values[j], values[i] })
	return values[:1+g.r.IntN(len(values))]
}

func (g *generator) genNamespaceSelector() *metav1.LabelSelector {
	switch x := g.r.Float64(); {
	case x < 0.35:
		return &metav1.LabelSelector{} // every namespace
	case x < 0.75:
		return &metav1.LabelSelector{MatchLabels: map[string]string{"team": g.pick([]string{"a", "b"})}}
	}
	e := metav1.LabelSelectorRequirement{Key: "env", Operator: metav1.LabelSelectorOpExists}
	if g.chance(0.6) {
		e.Operator = metav1.LabelSelectorOperator(g.pick([]string{"In", "NotIn"}))
		e.Values = []string{"prod"}
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{e}}
}

// genLabelKeys adds matchLabelKeys and mismatchLabelKeys as validation allows them: a
// matchLabelKeys key is not in the selector already, and no key is in both lists.
func (g *generator) genLabelKeys(t *corev1.PodAffinityTerm) {
	inSelector := map[string]bool{}
	for k := range t.LabelSelector.MatchLabels {
		inSelector[k] = true
	}
	for _, e := range t.LabelSelector.MatchExpressions {
		inSelector[e.Key] = true
	}
	if g.chance(0.2) {
		if k := g.pick(podLabelKeys); !inSelector[k] {
			t.MatchLabelKeys = []string{k}
		}
	}
	if g.chance(0.15) {
		if k := g.pick(podLabelKeys); !slices.Contains(t.MatchLabelKeys, k) {
			t.MismatchLabelKeys = []string{k}
		}
	}
}
