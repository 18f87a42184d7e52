package differential

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	core "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install" // the v1 ⇄ internal conversions
	podregistry "k8s.io/kubernetes/pkg/registry/core/pod"
)

// storedAs returns the pod as the pinned kube-apiserver stores it on creation: its pod
// strategy merges each affinity term's matchLabelKeys and mismatchLabelKeys into the term's
// labelSelector with the pod's labels. Only the affinity is taken from the result; the rest
// of what creation sets (status, generation) is not what the cases are about.
func storedAs(p *corev1.Pod) corev1.Pod {
	stored := *p.DeepCopy()
	var internal core.Pod
	if err := legacyscheme.Scheme.Convert(p.DeepCopy(), &internal, nil); err != nil {
		panic(err)
	}
	podregistry.Strategy.PrepareForCreate(context.Background(), &internal)
	var back corev1.Pod
	if err := legacyscheme.Scheme.Convert(&internal, &back, nil); err != nil {
		panic(err)
	}
	stored.Spec.Affinity = back.Spec.Affinity
	return stored
}
