package differential

import (
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The vocabulary the generator draws from: small on purpose, so that random terms select
// some pods and miss others instead of almost always missing.
const (
	hostnameKey = "kubernetes.io/hostname"
	zoneKey     = "topology.kubernetes.io/zone"
	rackKey     = "example.com/rack"
	// A topology key no node carries: a term over it has no domain anywhere.
	absentKey = "example.com/absent"
	// A node that pods are bound to but that is gone from the node list, as after a node
	// deletion that its pods' deletions have not caught up with.
	goneNode = "node-gone"
)

var (
	podLabelValues = map[string][]string{
		"app":     {"web", "db", "cache"},
		"tier":    {"front", "back"},
		"version": {"v1", "v2"},
	}
	podLabelKeys = []string{"app", "tier", "version"}
	priorities   = []int32{0, 10, 100}
)

// Batch is one cluster, the extender's configuration for it and the pods asked about, each
// pod a case. A saved mismatch is a Batch with the one pod that disagreed.
type Batch struct {
	Seed   uint64 `json:"seed"`
	Config Config `json:"config"`
	// SendNodes sends full Node objects (ExtenderArgs.Nodes) instead of names, as a
	// kube-scheduler that registered the extender without nodeCacheCapable does.
	SendNodes  bool               `json:"sendNodes"`
	Nodes      []corev1.Node      `json:"nodes"`
	Namespaces []corev1.Namespace `json:"namespaces"`
	// Pods of the cluster as the API server stores them; the extender reads Stored or
	// Written (see Pod) in its cluster-state file.
	Pods []Pod `json:"pods"`
	// Incoming pods, scheduled one at a time against the unchanged cluster.
	Incoming []Pod `json:"incoming"`
}

// Pod is a pod as its author wrote it and as the API server stored it: the API server merges
// matchLabelKeys and mismatchLabelKeys into the terms' labelSelectors at creation, and labels
// may change afterwards without the merge following them.
type Pod struct {
	Written corev1.Pod `json:"written"`
	Stored  corev1.Pod `json:"stored"`
	// Raw sends Written to the extender (a hand-made cluster-state file); otherwise it gets
	// Stored, as it would from the API server.
	Raw bool `json:"raw"`
}

// Sent is the pod the extender sees.
func (p *Pod) Sent() *corev1.Pod {
	if p.Raw {
		return &p.Written
	}
	return &p.Stored
}

// Config is the extender's framework configuration and InterPodAffinity's arguments, the
// same on both sides.
type Config struct {
	AffinityWeight                     int32 `json:"affinityWeight"`
	PodStateWeight                     int32 `json:"podStateWeight"` // 0: PodState not enabled
	HardPodAffinityWeight              int32 `json:"hardPodAffinityWeight"`
	IgnorePreferredTermsOfExistingPods bool  `json:"ignorePreferredTermsOfExistingPods"`
}

// generator draws one batch from its own seeded source, so that a seed names a batch.
type generator struct {
	r     *rand.Rand
	seed  uint64
	nodes []corev1.Node
	nss   []string
	uid   int
}

func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x5eed)), seed: seed}
}

func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

func (g *generator) pick(values []string) string { return values[g.r.IntN(len(values))] }

// generate draws a batch: a cluster, a configuration and n incoming pods.
func generate(seed uint64, n int) Batch {
	g := newGenerator(seed)
	b := Batch{Seed: seed, SendNodes: g.chance(0.25)}
	b.Config = Config{
		AffinityWeight:                     int32(1 + g.r.IntN(5)),
		HardPodAffinityWeight:              []int32{0, 1, 1, 5, 100}[g.r.IntN(5)],
		IgnorePreferredTermsOfExistingPods: g.chance(0.3),
	}
	if g.chance(0.6) {
		b.Config.PodStateWeight = int32(1 + g.r.IntN(3))
	}
	b.Nodes = g.genNodes()
	b.Namespaces = g.genNamespaces()
	raw := g.chance(0.3)
	created := func(p corev1.Pod) Pod {
		stored := storedAs(&p)
		stored.ResourceVersion = fmt.Sprint(1000 + g.uid)
		// Labels may change after creation; the stored selectors keep the old values. A
		// hand-written file has no history: its merge can only follow today's labels.
		if !raw && g.chance(0.05) {
			relabel := g.pick(podLabelKeys)
			if stored.Labels == nil {
				stored.Labels = map[string]string{}
			}
			stored.Labels[relabel] = g.pick(podLabelValues[relabel])
			p.Labels = stored.Labels
		}
		return Pod{Written: p, Stored: stored, Raw: raw}
	}
	for i, count := 0, g.r.IntN(3*len(b.Nodes)+6); i < count; i++ {
		b.Pods = append(b.Pods, created(g.genExistingPod(i)))
	}
	for i := 0; i < n; i++ {
		// Now and then the pod asked about is itself nominated: neither side may count it
		// against itself in Filter.
		if g.chance(0.05) {
			if p, ok := g.nominatedOf(b.Pods); ok {
				b.Incoming = append(b.Incoming, p)
				continue
			}
		}
		b.Incoming = append(b.Incoming, created(g.genIncomingPod(i)))
	}
	return b
}

func (g *generator) genNodes() []corev1.Node {
	count := 1 + g.r.IntN(10)
	// Now and then a larger cluster, where the extender filters and scores nodes in parallel.
	if g.chance(0.1) {
		count = 20 + g.r.IntN(41)
	}
	zones := 1 + g.r.IntN(3)
	var nodes []corev1.Node
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("node-%d", i)
		labels := map[string]string{}
		if !g.chance(0.1) {
			labels[hostnameKey] = name
		}
		if !g.chance(0.15) {
			labels[zoneKey] = fmt.Sprintf("zone-%d", g.r.IntN(zones))
		}
		if g.chance(0.5) {
			labels[rackKey] = fmt.Sprintf("rack-%d", g.r.IntN(2))
		}
		nodes = append(nodes, corev1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels},
		})
	}
	g.nodes = nodes
	return nodes
}

func (g *generator) genNamespaces() []corev1.Namespace {
	var out []corev1.Namespace
	count := 1 + g.r.IntN(4)
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("ns-%d", i)
		labels := map[string]string{corev1.LabelMetadataName: name}
		if g.chance(0.7) {
			labels["team"] = g.pick([]string{"a", "b"})
		}
		if g.chance(0.5) {
			labels["env"] = g.pick([]string{"prod", "dev"})
		}
		out = append(out, corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-ns-" + name), Labels: labels},
		})
		g.nss = append(g.nss, name)
	}
	return out
}

func (g *generator) newPod(name string) corev1.Pod {
	g.uid++
	labels := map[string]string{}
	for _, k := range podLabelKeys {
		p := 0.6
		if k == "app" {
			p = 0.9
		}
		if g.chance(p) {
			labels[k] = g.pick(podLabelValues[k])
		}
	}
	priority := priorities[g.r.IntN(len(priorities))]
	return corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: g.pick(g.nss),
			UID:       types.UID(fmt.Sprintf("uid-%d-%d", g.seed, g.uid)),
			Labels:    labels,
		},
		Spec: corev1.PodSpec{
			SchedulerName: corev1.DefaultSchedulerName,
			Priority:      &priority,
			Containers:    []corev1.Container{{Name: "main", Image: "registry.example.com/app:1"}},
			Affinity:      g.genAffinity(labels),
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// genExistingPod draws a pod of the cluster: mostly bound and running, some terminating,
// finished or only nominated to a node.
func (g *generator) genExistingPod(i int) corev1.Pod {
	p := g.newPod(fmt.Sprintf("existing-%d", i))
	node := g.nodes[g.r.IntN(len(g.nodes))].Name
	if g.chance(0.03) {
		node = goneNode
	}
	switch x := g.r.Float64(); {
	case x < 0.12: // nominated by a preemption, not bound yet
		p.Status.Phase = corev1.PodPending
		p.Status.NominatedNodeName = node
		return p
	case x < 0.22:
		t := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
		p.DeletionTimestamp = &t
	case x < 0.28:
		p.Status.Phase = corev1.PodPhase(g.pick([]string{string(corev1.PodSucceeded), string(corev1.PodFailed)}))
	}
	p.Spec.NodeName = node
	return p
}

func (g *generator) genIncomingPod(i int) corev1.Pod {
	p := g.newPod(fmt.Sprintf("incoming-%d", i))
	p.Status.Phase = corev1.PodPending
	return p
}

// nominatedOf returns one of the cluster's nominated pods, to be asked about itself.
func (g *generator) nominatedOf(pods []Pod) (Pod, bool) {
	var nominated []Pod
	for _, p := range pods {
		if p.Stored.Status.NominatedNodeName != "" && p.Stored.Spec.NodeName == "" {
			nominated = append(nominated, p)
		}
	}
	if len(nominated) == 0 {
		return Pod{}, false
	}
	return nominated[g.r.IntN(len(nominated))], true
}
