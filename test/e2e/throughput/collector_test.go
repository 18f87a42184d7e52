package throughput

import (
	"context"
	"math"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// boundPods watches pods and counts, per namespace, those with a node, each pod once however
// often the informer reports it.
type boundPods struct {
	mu         sync.Mutex
	bound      map[string]struct{} // namespace/name
	perNS      map[string]int
	lastBound  time.Time
	firstPerNS map[string]time.Time
	stop       chan struct{}
}

func watchBoundPods(client kubernetes.Interface) (*boundPods, error) {
	b := &boundPods{bound: map[string]struct{}{}, perNS: map[string]int{}, firstPerNS: map[string]time.Time{}, stop: make(chan struct{})}
	factory := informers.NewSharedInformerFactory(client, 0)
	informer := factory.Core().V1().Pods().Informer()
	on := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		key := pod.Namespace + "/" + pod.Name
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, seen := b.bound[key]; !seen {
			b.bound[key] = struct{}{}
			b.perNS[pod.Namespace]++
			b.lastBound = time.Now()
			if b.perNS[pod.Namespace] == 1 {
				b.firstPerNS[pod.Namespace] = b.lastBound
			}
		}
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    on,
		UpdateFunc: func(_, obj any) { on(obj) },
	}); err != nil {
		return nil, err
	}
	factory.Start(b.stop)
	factory.WaitForCacheSync(b.stop)
	return b, nil
}

func (b *boundPods) close() { close(b.stop) }

// count is the number of bound pods in the namespaces.
func (b *boundPods) count(namespaces ...string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, ns := range namespaces {
		n += b.perNS[ns]
	}
	return n
}

// first is when the first pod of the namespace was seen bound.
func (b *boundPods) first(namespace string) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.firstPerNS[namespace]
}

func (b *boundPods) last() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastBound
}

// waitBound polls until want pods of the namespaces are bound or the timeout passes; it
// returns how many were.
func (b *boundPods) waitBound(ctx context.Context, want int, timeout time.Duration, namespaces ...string) int {
	deadline := time.Now().Add(timeout)
	for {
		n := b.count(namespaces...)
		if n >= want || time.Now().After(deadline) || ctx.Err() != nil {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sampler is scheduler_perf's throughputCollector: every second the pods scheduled since
// the previous sample, divided by the time since it; the first non-zero sample is skipped
// (sampling and creation start independently); an interval in which nothing was scheduled
// is not recorded as 0 but merged into the next one, whose rate is recorded once per
// interval merged.
type sampler struct {
	samples []float64
	done    chan struct{}
	cancel  context.CancelFunc
}

func startSampler(b *boundPods, namespace string) *sampler {
	ctx, cancel := context.WithCancel(context.Background())
	s := &sampler{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		last := b.count(namespace)
		lastTime := time.Now()
		started := false
		skipped := 0
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
			now := time.Now()
			scheduled := b.count(namespace)
			if scheduled == 0 {
				continue
			}
			if !started {
				started = true
				last, lastTime = scheduled, now
				continue
			}
			newScheduled := scheduled - last
			if newScheduled == 0 {
				skipped++
				continue
			}
			rate := float64(newScheduled) / now.Sub(lastTime).Seconds()
			for i := 0; i <= skipped; i++ {
				s.samples = append(s.samples, rate)
			}
			last, lastTime, skipped = scheduled, now, 0
		}
	}()
	return s
}

// finish stops sampling and returns the samples.
func (s *sampler) finish() []float64 {
	s.cancel()
	<-s.done
	return s.samples
}

// summary is scheduler_perf's SchedulingThroughput data item.
type summary struct {
	Samples                     int
	Average, P50, P90, P95, P99 float64
}

func summarize(samples []float64) summary {
	n := len(samples)
	if n == 0 {
		return summary{}
	}
	sorted := append([]float64(nil), samples...)
	sort.Float64s(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	perc := func(p int) float64 { return sorted[int(math.Ceil(float64(n*p)/100))-1] }
	return summary{Samples: n, Average: sum / float64(n), P50: perc(50), P90: perc(90), P95: perc(95), P99: perc(99)}
}
