package differential

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// Verdict is one node's Filter outcome: the status code's name and its message (the reasons
// joined with ", "), empty on Success.
type Verdict struct {
	Code   string `json:"code"`
	Reason string `json:"reason,omitempty"`
}

// PluginScore is one score plugin's output for a node: its Score, and its normalized score
// times its weight.
type PluginScore struct {
	Raw      int64 `json:"raw"`
	Weighted int64 `json:"weighted"`
}

// Answer is what a scheduling cycle makes of one pod: a Filter verdict for every node, and
// for the feasible ones (in node order) each score plugin's scores.
type Answer struct {
	Filter   map[string]Verdict                `json:"filter"`
	Feasible []string                          `json:"feasible"`
	Scores   map[string]map[string]PluginScore `json:"scores"`
}

// oracle is kube-scheduler's own framework at the pinned release, set up as the scheduler
// sets it up: the in-tree registry, a profile with InterPodAffinity at its extension points,
// a snapshot taken from the scheduler's cache, namespaces from an informer, and nominated
// pods held by the scheduling queue's nominator.
type oracle struct {
	fw     framework.Framework
	nodes  []fwk.NodeInfo
	cancel context.CancelFunc
}

func newOracle(parent context.Context, b *Batch) (_ *oracle, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	logger := klog.FromContext(ctx)

	// The scheduler's cache holds nodes and the pods bound to them; its pod informer never
	// lists Succeeded or Failed pods (a field selector), so they never reach it.
	cache := internalcache.New(ctx, nil, false, false)
	for i := range b.Nodes {
		cache.AddNode(logger, &b.Nodes[i])
	}
	var objects []runtime.Object
	for i := range b.Namespaces {
		objects = append(objects, &b.Namespaces[i])
	}
	var nominated []*corev1.Pod
	for i := range b.Pods {
		p := &b.Pods[i].Stored
		switch {
		case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		case p.Spec.NodeName != "":
			if err := cache.AddPod(logger, p); err != nil {
				return nil, fmt.Errorf("adding %s to the scheduler cache: %w", p.Name, err)
			}
		case p.Status.NominatedNodeName != "":
			nominated = append(nominated, p)
			objects = append(objects, p)
		}
	}
	snapshot := internalcache.NewEmptySnapshot()
	if err := cache.UpdateSnapshot(logger, snapshot); err != nil {
		return nil, fmt.Errorf("taking the snapshot: %w", err)
	}

	// The queue's nominator learns of a nominated pod when the pod is added to the queue,
	// as kube-scheduler's event handlers add every pending pod.
	informerFactory := informers.NewSharedInformerFactory(fake.NewClientset(objects...), 0)
	recorder := metrics.NewMetricsAsyncRecorder(10, 20*time.Microsecond, ctx.Done())
	queue := internalqueue.NewTestQueueWithInformerFactory(ctx, (&queuesort.PrioritySort{}).Less,
		informerFactory, internalqueue.WithMetricsRecorder(recorder))
	for _, p := range nominated {
		queue.Add(ctx, p)
	}

	fw, err := frameworkruntime.NewFramework(ctx, registry(), profile(b.Config),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithPodNominator(queue),
		frameworkruntime.WithParallelism(1))
	if err != nil {
		return nil, fmt.Errorf("building the framework: %w", err)
	}
	// The plugin asked for the namespace lister when it was built.
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())

	nodes, err := snapshot.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	return &oracle{fw: fw, nodes: nodes, cancel: cancel}, nil
}

func (o *oracle) close() { o.cancel() }

func registry() frameworkruntime.Registry {
	r := frameworkplugins.NewInTreeRegistry()
	if err := r.Register(podStateName, newPodState); err != nil {
		panic(err)
	}
	return r
}

func profile(c Config) *config.KubeSchedulerProfile {
	one := func(name string) config.PluginSet {
		return config.PluginSet{Enabled: []config.Plugin{{Name: name}}}
	}
	score := []config.Plugin{{Name: names.InterPodAffinity, Weight: c.AffinityWeight}}
	if c.PodStateWeight > 0 {
		score = append(score, config.Plugin{Name: podStateName, Weight: c.PodStateWeight})
	}
	return &config.KubeSchedulerProfile{
		SchedulerName: corev1.DefaultSchedulerName,
		Plugins: &config.Plugins{
			QueueSort: one(names.PrioritySort),
			Bind:      one(names.DefaultBinder),
			PreFilter: one(names.InterPodAffinity),
			Filter:    one(names.InterPodAffinity),
			PreScore:  one(names.InterPodAffinity),
			Score:     config.PluginSet{Enabled: score},
		},
		PluginConfig: []config.PluginConfig{{
			Name: names.InterPodAffinity,
			Args: &config.InterPodAffinityArgs{
				HardPodAffinityWeight:              c.HardPodAffinityWeight,
				IgnorePreferredTermsOfExistingPods: c.IgnorePreferredTermsOfExistingPods,
			},
		}},
	}
}

// schedule runs one cycle's PreFilter and Filter (with nominated pods, in two passes) on
// every node, then PreScore, Score and NormalizeScore on the feasible ones.
func (o *oracle) schedule(ctx context.Context, pod *corev1.Pod) (Answer, error) {
	a := Answer{Filter: map[string]Verdict{}, Scores: map[string]map[string]PluginScore{}}
	state := framework.NewCycleState()
	_, s, _ := o.fw.RunPreFilterPlugins(ctx, state, pod)
	var feasible []fwk.NodeInfo
	for _, n := range o.nodes {
		name := n.Node().Name
		if !s.IsSuccess() {
			// A PreFilter rejection is every node's verdict.
			a.Filter[name] = verdictOf(s)
			continue
		}
		st := o.fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, n)
		a.Filter[name] = verdictOf(st)
		if st.IsSuccess() {
			feasible = append(feasible, n)
			a.Feasible = append(a.Feasible, name)
		}
	}
	if len(feasible) == 0 {
		return a, nil
	}
	if st := o.fw.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
		return a, fmt.Errorf("PreScore: %s", st.Message())
	}
	scores, st := o.fw.RunScorePlugins(ctx, state, pod, feasible)
	if !st.IsSuccess() {
		return a, fmt.Errorf("Score: %s", st.Message())
	}
	for _, ns := range scores {
		byPlugin := map[string]PluginScore{}
		for _, raw := range ns.RawScores {
			byPlugin[raw.Name] = PluginScore{Raw: raw.Score}
		}
		for _, w := range ns.Scores {
			ps := byPlugin[w.Name]
			ps.Weighted = w.Score
			byPlugin[w.Name] = ps
		}
		a.Scores[ns.Name] = byPlugin
	}
	return a, nil
}

func verdictOf(s *fwk.Status) Verdict {
	if s.IsSuccess() {
		return Verdict{Code: "Success"}
	}
	return Verdict{Code: s.Code().String(), Reason: s.Message()}
}
