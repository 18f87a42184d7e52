package differential

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// tally counts what the cases exercised, so that a run of agreeing cases is known not to
// agree only because nothing happened: nodes refused for each reason, scores that differ
// between nodes, nominated pods in play.
type tally struct {
	Cases           int
	Nodes           int
	Verdicts        map[string]int // "code: reason" → nodes
	CasesRefusing   int            // some node refused, some not
	CasesAllRefused int
	CasesSpread     int // /prioritize scores not all equal
	CasesNominated  int // a nominated pod of at least the incoming pod's priority in the cluster
	Mismatches      int
}

func newTally() *tally { return &tally{Verdicts: map[string]int{}} }

func (t *tally) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cases over %d node verdicts, %d mismatches\n", t.Cases, t.Nodes, t.Mismatches)
	fmt.Fprintf(&b, "cases refusing some nodes but not all: %d, refusing all: %d, with scores spread: %d, with nominated pods that count: %d\n",
		t.CasesRefusing, t.CasesAllRefused, t.CasesSpread, t.CasesNominated)
	for _, v := range slices.Sorted(maps.Keys(t.Verdicts)) {
		fmt.Fprintf(&b, "  %7d  %s\n", t.Verdicts[v], v)
	}
	return b.String()
}

// compareCase asks upstream's framework and the extender about one pod and returns every
// difference between their answers.
func compareCase(ctx context.Context, o *oracle, e *extender, b *Batch, p *Pod, t *tally) ([]string, error) {
	want, err := o.schedule(ctx, &p.Stored)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	all := make([]string, len(b.Nodes))
	for i := range b.Nodes {
		all[i] = b.Nodes[i].Name
	}
	var diffs []string
	differ := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }

	var fr filterResult
	if err := e.post(ctx, "filter", extenderArgs(b, p.Sent(), all), &fr); err != nil {
		return nil, err
	}
	got := verdictsOf(&fr, all)
	for _, n := range all {
		if got[n] != want.Filter[n] {
			differ("%s: Filter: upstream %s %q, extender %s %q", n, want.Filter[n].Code, want.Filter[n].Reason, got[n].Code, got[n].Reason)
		}
	}

	t.count(b, p, &want)
	if len(want.Feasible) == 0 {
		return diffs, nil
	}
	var priorities []hostPriority
	if err := e.post(ctx, "prioritize", extenderArgs(b, p.Sent(), want.Feasible), &priorities); err != nil {
		return nil, err
	}
	gotScore := map[string]int64{}
	for _, hp := range priorities {
		gotScore[hp.Host] = hp.Score
	}
	wantScore := extenderScores(b.Config, &want)
	for _, n := range want.Feasible {
		if g, ok := gotScore[n]; !ok || g != wantScore[n] {
			differ("%s: /prioritize: upstream's scores make %d, extender %d (present: %v)", n, wantScore[n], g, ok)
		}
	}
	if len(gotScore) != len(want.Feasible) {
		differ("/prioritize answered %d hosts for %d nodes sent", len(gotScore), len(want.Feasible))
	}
	if spread(wantScore) {
		t.CasesSpread++
	}

	var ex explanation
	if err := e.post(ctx, "explain", extenderArgs(b, p.Sent(), all), &ex); err != nil {
		return nil, err
	}
	for _, n := range ex.Nodes {
		if !n.Feasible {
			continue
		}
		for _, s := range n.Scores {
			w := want.Scores[n.Name][s.Plugin] // a plugin whose PreScore skipped scores 0
			if s.Raw != w.Raw || s.Normalized*s.Weight != w.Weighted {
				differ("%s: %s: upstream raw %d weighted %d, extender raw %d normalized %d × weight %d",
					n.Name, s.Plugin, w.Raw, w.Weighted, s.Raw, s.Normalized, s.Weight)
			}
		}
	}
	return diffs, nil
}

// verdictsOf reads ExtenderFilterResult as one verdict per node sent.
func verdictsOf(fr *filterResult, sent []string) map[string]Verdict {
	v := map[string]Verdict{}
	if fr.Error != "" {
		for _, n := range sent {
			v[n] = Verdict{Code: "Error", Reason: fr.Error}
		}
		return v
	}
	if fr.NodeNames != nil {
		for _, n := range *fr.NodeNames {
			v[n] = Verdict{Code: "Success"}
		}
	}
	if fr.Nodes != nil {
		for _, n := range fr.Nodes.Items {
			v[n.Name] = Verdict{Code: "Success"}
		}
	}
	for n, r := range fr.FailedNodes {
		v[n] = Verdict{Code: "Unschedulable", Reason: r}
	}
	for n, r := range fr.FailedAndUnresolvableNodes {
		v[n] = Verdict{Code: "UnschedulableAndUnresolvable", Reason: r}
	}
	return v
}

// extenderScores maps upstream's weighted scores onto what /prioritize answers: the node's
// total over the sum of the weights, scaled from MaxNodeScore (100) to MaxExtenderPriority
// (10) and rounded half up.
func extenderScores(c Config, a *Answer) map[string]int64 {
	weights := int64(c.AffinityWeight)
	if c.PodStateWeight > 0 {
		weights += int64(c.PodStateWeight)
	}
	out := map[string]int64{}
	for _, n := range a.Feasible {
		var total int64
		for _, s := range a.Scores[n] {
			total += s.Weighted
		}
		out[n] = (2*total*10 + 100*weights) / (2 * 100 * weights)
	}
	return out
}

func spread(scores map[string]int64) bool {
	values := slices.Collect(maps.Values(scores))
	return len(values) > 1 && slices.Min(values) != slices.Max(values)
}

func (t *tally) count(b *Batch, p *Pod, a *Answer) {
	t.Cases++
	refused := 0
	for _, v := range a.Filter {
		t.Nodes++
		key := v.Code
		if v.Reason != "" {
			key += ": " + v.Reason
		}
		t.Verdicts[key]++
		if v.Code != "Success" {
			refused++
		}
	}
	switch {
	case refused == len(a.Filter) && refused > 0:
		t.CasesAllRefused++
	case refused > 0:
		t.CasesRefusing++
	}
	for i := range b.Pods {
		q := &b.Pods[i].Stored
		if q.Spec.NodeName == "" && q.Status.NominatedNodeName != "" && q.UID != p.Stored.UID &&
			corev1helpers.PodPriority(q) >= corev1helpers.PodPriority(&p.Stored) {
			t.CasesNominated++
			break
		}
	}
}
