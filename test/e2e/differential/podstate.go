package differential

import (
	"context"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
)

const podStateName = "PodState"

// podState is scheduler-plugins' PodState score plugin, plugged into upstream's framework so
// that the framework itself applies the profile's weights to both plugins. scheduler-plugins
// publishes no release built against this Kubernetes release, so the plugin is written here
// from its documented behaviour: a node scores its terminating pods minus the pods nominated
// to it (whatever their priority, the pod being scheduled too), min-max normalized to
// [0, 100] with integer division, and 0 everywhere when every node scores the same.
type podState struct{ handle fwk.Handle }

func newPodState(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return &podState{handle: h}, nil
}

func (p *podState) Name() string { return podStateName }

func (p *podState) Score(_ context.Context, _ fwk.CycleState, _ *corev1.Pod, n fwk.NodeInfo) (int64, *fwk.Status) {
	var terminating int64
	for _, pi := range n.GetPods() {
		if pi.GetPod().DeletionTimestamp != nil {
			terminating++
		}
	}
	return terminating - int64(len(p.handle.NominatedPodsForNode(n.Node().Name))), nil
}

func (p *podState) ScoreExtensions() fwk.ScoreExtensions { return p }

func (p *podState) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *corev1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	highest, lowest := int64(math.MinInt64), int64(math.MaxInt64)
	for _, s := range scores {
		highest = max(highest, s.Score)
		lowest = min(lowest, s.Score)
	}
	for i := range scores {
		if highest == lowest {
			scores[i].Score = fwk.MinNodeScore
		} else {
			scores[i].Score = (scores[i].Score - lowest) * fwk.MaxNodeScore / (highest - lowest)
		}
	}
	return nil
}
