// Package nodeagent stands in for kubelet (and for kube-proxy and cluster DNS where the pods
// it runs need them) on a machine without a container runtime, as the end-to-end suite's
// only node.
//
// It serves every Node object of the cluster. A pod bound to a node whose images all have a
// binary standing in for them (Config.Images: the chart's kube-scheduler and extender) runs
// as host processes from its spec: its command and arguments, its ConfigMap, Secret and
// service-account token volumes where its volumeMounts say, its user and groups, its probes,
// in a network namespace of its own with an address on the agent's bridge (sandbox.go,
// network.go). Any other pod is hollow, as kubemark's hollow nodes have them: reported
// running and ready, with nothing behind it. Deleted pods are stopped within their grace
// period and then removed, as kubelet confirms a deletion.
//
// What it does not do: images, resource limits, init containers, exec probes, restart
// policies other than Always, kube-proxy's NAT (Services are reached through a user-space
// proxy, proxy.go), DNS (each pod's /etc/hosts names the Services there were when it started),
// NetworkPolicy (no CNI enforces it).
package nodeagent

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Image says how a container of an image is run: the binary that stands in for it.
type Image struct {
	Entrypoint []string // the image's ENTRYPOINT, for a container that gives no command
	Path       []string // where a command without a slash is looked up (the image's PATH)
	User       int64    // the image's USER, for a pod that does not set runAsUser
}

// Config is what the agent needs to know.
type Config struct {
	Client kubernetes.Interface
	// APIServer is kube-apiserver's host:port, where the `kubernetes` Service leads.
	APIServer string
	// Images maps image names to their stand-ins: the last segment of the repository, so that
	// "kube-scheduler" stands for registry.k8s.io/kube-scheduler:v1.37.2 and for a mirror's
	// copy of it alike.
	Images map[string]Image
	// WorkDir holds each pod's volumes, hosts file and container logs.
	WorkDir string
	// Bridge and Gateway: the pod network (network.go); defaults sxe2e0 and 10.244.0.1/16.
	Bridge  string
	Gateway netip.Prefix
	Logf    func(format string, args ...any)
}

// Agent is a running node agent; New starts it and Stop ends it.
type Agent struct {
	cfg               Config
	network           *Network
	kubernetesService netip.AddrPort
	pods              corelisters.PodLister
	services          corelisters.ServiceLister
	queue             workqueue.TypedRateLimitingInterface[string]
	proxy             *serviceProxy
	stopInformers     context.CancelFunc
	workers           sync.WaitGroup

	lock *os.File

	mu      sync.Mutex
	runners map[types.UID]*podRunner
}

// lockPath is held by the agent that runs: one agent per machine, since each removes what
// it finds of earlier ones (network namespaces, the bridge).
const lockPath = "/run/sx-e2e-node-agent.lock"

func takeLock() (*os.File, error) {
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another node agent runs on this machine (it holds %s): one at a time", lockPath)
	}
	return f, nil
}

// The `kubernetes` Service's ClusterIP, the first address of local-cluster.sh's service range.
var kubernetesServiceIP = netip.MustParseAddr("10.96.0.1")

// podDir holds a pod's volumes, hosts file, overlays and logs:
// <WorkDir>/pods/<namespace>_<name>_<uid[:8]>.
func (a *Agent) podDir(pod *corev1.Pod) string {
	return path.Join(a.cfg.WorkDir, "pods", fmt.Sprintf("%s_%s_%s", pod.Namespace, pod.Name, string(pod.UID)[:8]))
}

// LogPath is where a container's output goes, across its restarts.
func (a *Agent) LogPath(pod *corev1.Pod, container string) string {
	return path.Join(a.podDir(pod), container+".log")
}

// New sets up the pod network and starts serving pods.
func New(cfg Config) (*Agent, error) {
	if cfg.Bridge == "" {
		cfg.Bridge = "sxe2e0"
	}
	if !cfg.Gateway.IsValid() {
		cfg.Gateway = netip.MustParsePrefix("10.244.0.1/16")
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	a := &Agent{
		cfg:               cfg,
		network:           &Network{Bridge: cfg.Bridge, Gateway: cfg.Gateway},
		kubernetesService: netip.AddrPortFrom(kubernetesServiceIP, 443),
		runners:           map[types.UID]*podRunner{},
		queue:             workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
	}
	var err error
	if a.lock, err = takeLock(); err != nil {
		return nil, err
	}
	if err := a.network.setUp(); err != nil {
		a.lock.Close()
		return nil, fmt.Errorf("pod network: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.stopInformers = cancel
	abandon := func(err error) (*Agent, error) {
		cancel()
		if a.proxy != nil {
			a.proxy.stop()
		}
		a.network.tearDown()
		a.lock.Close()
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(cfg.Client, 0)
	podInformer := factory.Core().V1().Pods()
	a.pods = podInformer.Lister()
	a.services = factory.Core().V1().Services().Lister()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			a.queue.Add(key)
		}
	}
	_, _ = podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	})
	a.proxy = newServiceProxy(a.network, cfg.APIServer, a.kubernetesService, factory, cfg.Logf)
	factory.Start(ctx.Done())
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return abandon(fmt.Errorf("node agent: informer %v did not sync", informer))
		}
	}
	if err := a.proxy.start(ctx); err != nil {
		return abandon(err)
	}
	for range 4 {
		a.workers.Add(1)
		go func() {
			defer a.workers.Done()
			for a.processNext(ctx) {
			}
		}()
	}
	return a, nil
}

// Stop stops every pod's containers, the proxy and the network. The pods stay in the API
// server as they were.
func (a *Agent) Stop() {
	a.queue.ShutDown()
	a.stopInformers()
	a.workers.Wait()
	a.mu.Lock()
	runners := a.runners
	a.runners = map[types.UID]*podRunner{}
	a.mu.Unlock()
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() { defer wg.Done(); r.stop() }()
	}
	wg.Wait()
	a.proxy.stop()
	a.network.tearDown()
	a.lock.Close()
}

func (a *Agent) logf(format string, args ...any) { a.cfg.Logf("node agent: "+format, args...) }

func (a *Agent) processNext(ctx context.Context) bool {
	key, quit := a.queue.Get()
	if quit {
		return false
	}
	defer a.queue.Done(key)
	if err := a.sync(ctx, key); err != nil {
		if ctx.Err() != nil {
			return false
		}
		a.logf("pod %s: %v (retrying)", key, err)
		a.queue.AddRateLimited(key)
		return true
	}
	a.queue.Forget(key)
	return true
}

// sync brings a pod's processes in line with its object: start a bound pod, stop and remove
// a deleted one.
func (a *Agent) sync(ctx context.Context, key string) error {
	namespace, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := a.pods.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		a.stopPods(func(r *podRunner) bool { return r.pod.Namespace == namespace && r.pod.Name == name })
		return nil
	}
	if err != nil {
		return err
	}
	// A pod of the same name but another UID replaced the one that ran.
	a.stopPods(func(r *podRunner) bool {
		return r.pod.Namespace == namespace && r.pod.Name == name && r.pod.UID != pod.UID
	})
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return nil
	}
	if pod.DeletionTimestamp != nil {
		a.stopPods(func(r *podRunner) bool { return r.pod.UID == pod.UID })
		return a.confirmDeletion(ctx, pod)
	}
	if !a.runnable(pod) {
		return a.reportHollow(ctx, pod)
	}
	a.mu.Lock()
	_, running := a.runners[pod.UID]
	a.mu.Unlock()
	if running {
		return nil
	}
	runner, err := a.startPod(ctx, pod)
	if err != nil {
		return fmt.Errorf("starting: %w", err)
	}
	a.logf("pod %s/%s runs on %s at %s (logs in %s)", pod.Namespace, pod.Name, pod.Spec.NodeName, runner.ip, runner.dir)
	a.mu.Lock()
	a.runners[pod.UID] = runner
	a.mu.Unlock()
	return nil
}

func (a *Agent) stopPods(match func(*podRunner) bool) {
	a.mu.Lock()
	var stopping []*podRunner
	for uid, r := range a.runners {
		if match(r) {
			stopping = append(stopping, r)
			delete(a.runners, uid)
		}
	}
	a.mu.Unlock()
	for _, r := range stopping {
		r.stop()
		a.logf("pod %s/%s stopped", r.pod.Namespace, r.pod.Name)
	}
}

// confirmDeletion removes a deleted pod once its containers are gone, as kubelet does with a
// grace period of 0 and the pod's UID as a precondition.
func (a *Agent) confirmDeletion(ctx context.Context, pod *corev1.Pod) error {
	zero := int64(0)
	err := a.cfg.Client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// reportHollow reports a pod the agent does not run as running and ready.
func (a *Agent) reportHollow(ctx context.Context, pod *corev1.Pod) error {
	if pod.Status.Phase == corev1.PodRunning {
		return nil
	}
	now := metav1.Now()
	err := a.updateStatus(ctx, pod, func(s *corev1.PodStatus) {
		status := corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &now, HostIP: a.network.Gateway.Addr().String()}
		for _, c := range pod.Spec.Containers {
			started := true
			status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: &started,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			})
		}
		status.Conditions = readiness(true, now)
		mergeStatus(s, status)
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// runnable says whether every container's image has a stand-in binary.
func (a *Agent) runnable(pod *corev1.Pod) bool {
	for _, c := range pod.Spec.Containers {
		if _, ok := a.image(c.Image); !ok {
			return false
		}
	}
	return len(pod.Spec.Containers) > 0
}

func (a *Agent) image(ref string) (Image, bool) {
	repository, _, _ := strings.Cut(ref, "@")
	if i := strings.LastIndex(repository, ":"); i > strings.LastIndex(repository, "/") {
		repository = repository[:i]
	}
	image, ok := a.cfg.Images[path.Base(repository)]
	return image, ok
}

// command is the process's command line: the container's command, or the image's
// entrypoint, followed by its args; a command without a slash is looked up in the image's PATH.
func (image Image) command(c corev1.Container) ([]string, error) {
	command := c.Command
	if len(command) == 0 {
		command = image.Entrypoint
	}
	if len(command) == 0 {
		return nil, fmt.Errorf("neither the container nor the image gives a command")
	}
	argv := append(append([]string{}, command...), c.Args...)
	if !strings.Contains(argv[0], "/") {
		for _, dir := range image.Path {
			if fileExists(path.Join(dir, argv[0])) {
				argv[0] = path.Join(dir, argv[0])
				return argv, nil
			}
		}
		return nil, fmt.Errorf("%s is not in the image's PATH (%s)", argv[0], strings.Join(image.Path, ":"))
	}
	return argv, nil
}

// hostsFile is a pod's /etc/hosts: itself, and every Service under its cluster DNS names,
// which is how the pods here resolve <service>.<namespace>.svc without a cluster DNS.
func (a *Agent) hostsFile(podName string, ip netip.Addr) string {
	lines := []string{"127.0.0.1\tlocalhost", ip.String() + "\t" + podName}
	services, _ := a.services.List(everything)
	sort.Slice(services, func(i, j int) bool {
		return services[i].Namespace+"/"+services[i].Name < services[j].Namespace+"/"+services[j].Name
	})
	for _, s := range services {
		if s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone {
			continue
		}
		fqdn := s.Name + "." + s.Namespace + ".svc"
		lines = append(lines, s.Spec.ClusterIP+"\t"+fqdn+" "+fqdn+".cluster.local")
	}
	return strings.Join(lines, "\n") + "\n"
}

// Signal sends sig to a running container of a pod the agent runs, as a fault would reach
// it: SIGKILL for a crash (the agent restarts it), SIGSTOP and SIGCONT to freeze it.
func (a *Agent) Signal(pod *corev1.Pod, containerName string, sig syscall.Signal) error {
	a.mu.Lock()
	r := a.runners[pod.UID]
	a.mu.Unlock()
	if r == nil {
		return fmt.Errorf("the node agent does not run pod %s/%s", pod.Namespace, pod.Name)
	}
	for _, c := range r.containers {
		if c.spec.Name == containerName {
			c.mu.Lock()
			p := c.process
			c.mu.Unlock()
			if p == nil {
				return fmt.Errorf("container %s of pod %s/%s is not running", containerName, pod.Namespace, pod.Name)
			}
			return syscall.Kill(-p.Pid, sig)
		}
	}
	return fmt.Errorf("pod %s/%s has no container %s", pod.Namespace, pod.Name, containerName)
}
