package nodeagent

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// podRunner runs one pod's containers in a sandbox of their own (sandbox.go) and reports
// the pod's status as kubelet would.
type podRunner struct {
	agent      *Agent
	pod        *corev1.Pod // as it was when the pod started
	dir        string      // volumes, the hosts file, logs and overlays
	netns      string
	veth       string
	ip         netip.Addr
	startTime  metav1.Time
	containers []*container

	cancel  context.CancelFunc
	running sync.WaitGroup
	dirty   chan struct{}
	written corev1.PodStatus
}

// startPod sets up the pod's network and volumes and starts its containers.
func (a *Agent) startPod(ctx context.Context, pod *corev1.Pod) (*podRunner, error) {
	short := string(pod.UID)[:8]
	r := &podRunner{
		agent: a, pod: pod.DeepCopy(), startTime: metav1.Now(), dir: a.podDir(pod),
		netns: nsPrefix + short, veth: "sxh" + short,
		dirty: make(chan struct{}, 1),
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	ip, err := a.network.allocate()
	if err != nil {
		return nil, err
	}
	r.ip = ip
	if err := a.network.attach(r.netns, r.veth, ip); err != nil {
		a.network.release(ip)
		return nil, err
	}
	if err := r.prepare(ctx); err != nil {
		r.release()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	grace := 30 * time.Second
	if s := pod.Spec.TerminationGracePeriodSeconds; s != nil {
		grace = time.Duration(*s) * time.Second
	}
	for _, c := range r.containers {
		r.running.Add(1)
		go func() {
			defer r.running.Done()
			c.run(runCtx, grace)
		}()
	}
	go r.writeStatus(runCtx)
	r.markDirty()
	return r, nil
}

// prepare writes the volumes and the hosts file and builds each container's command line.
func (r *podRunner) prepare(ctx context.Context) error {
	pod := r.pod
	security := pod.Spec.SecurityContext
	if security == nil {
		security = &corev1.PodSecurityContext{}
	}
	volumes := filepath.Join(r.dir, "volumes")
	if err := (&volumeWriter{client: r.agent.cfg.Client, pod: pod, fsGroup: security.FSGroup}).write(ctx, volumes); err != nil {
		return err
	}
	hosts := filepath.Join(r.dir, "hosts")
	if err := os.WriteFile(hosts, []byte(r.agent.hostsFile(pod.Name, r.ip)), 0o644); err != nil {
		return err
	}
	for _, spec := range pod.Spec.Containers {
		image, ok := r.agent.image(spec.Image)
		if !ok {
			return fmt.Errorf("container %s: no binary stands in for image %s", spec.Name, spec.Image)
		}
		command, err := image.command(spec)
		if err != nil {
			return fmt.Errorf("container %s: %w", spec.Name, err)
		}
		identity, err := runAs(security, spec.SecurityContext, image)
		if err != nil {
			return fmt.Errorf("container %s: %w", spec.Name, err)
		}
		mounts := []mount{{source: hosts, target: "/etc/hosts", readOnly: true}}
		for _, m := range spec.VolumeMounts {
			mounts = append(mounts, mount{source: filepath.Join(volumes, m.Name, m.SubPath), target: m.MountPath, readOnly: m.ReadOnly})
		}
		readOnlyRoot := spec.SecurityContext != nil && spec.SecurityContext.ReadOnlyRootFilesystem != nil && *spec.SecurityContext.ReadOnlyRootFilesystem
		plan, err := planMounts(mounts, filepath.Join(r.dir, "overlays", spec.Name), readOnlyRoot)
		if err != nil {
			return fmt.Errorf("container %s: %w", spec.Name, err)
		}
		env, err := r.env(spec, image)
		if err != nil {
			return fmt.Errorf("container %s: %w", spec.Name, err)
		}
		// The UTS namespace gives the container the pod's name as its hostname, which
		// kube-scheduler puts in its leader-election identity.
		argv := []string{"ip", "netns", "exec", r.netns, "unshare", "--mount", "--uts", "--propagation", "private", "--",
			"/bin/sh", "-c", "echo " + quote(pod.Name) + " > /proc/sys/kernel/hostname\n" + plan.script(), "sh"}
		argv = append(argv, identity...)
		argv = append(argv, command...)
		r.containers = append(r.containers, &container{
			spec: spec, argv: argv, env: env, podIP: r.ip.String(),
			logPath: r.agent.LogPath(pod, spec.Name), changed: r.markDirty,
		})
	}
	return nil
}

// env is what the container sees: the image's PATH, the address of the `kubernetes` Service
// that in-cluster clients read, and the container's own env (values and field references).
func (r *podRunner) env(spec corev1.Container, image Image) ([]string, error) {
	api := r.agent.kubernetesService
	env := []string{
		"PATH=" + strings.Join(append(append([]string{}, image.Path...), "/usr/sbin", "/usr/bin", "/sbin", "/bin"), ":"),
		"HOME=/",
		"HOSTNAME=" + r.pod.Name,
		"KUBERNETES_SERVICE_HOST=" + api.Addr().String(),
		"KUBERNETES_SERVICE_PORT=" + strconv.Itoa(int(api.Port())),
		"KUBERNETES_SERVICE_PORT_HTTPS=" + strconv.Itoa(int(api.Port())),
	}
	pod := r.pod.DeepCopy()
	pod.Status.PodIP = r.ip.String()
	for _, e := range spec.Env {
		value := e.Value
		if e.ValueFrom != nil {
			var err error
			if value, err = fieldValue(pod, e.ValueFrom.FieldRef); err != nil {
				return nil, fmt.Errorf("env %s: %w", e.Name, err)
			}
		}
		env = append(env, e.Name+"="+value)
	}
	return env, nil
}

// runAs is the setpriv prefix that gives the process the container's user and groups, as the
// pod and container security contexts set them; nothing when it runs as the image's root.
func runAs(pod *corev1.PodSecurityContext, c *corev1.SecurityContext, image Image) ([]string, error) {
	uid, gid := image.User, image.User
	nonRoot := false
	if pod.RunAsUser != nil {
		uid = *pod.RunAsUser
	}
	if pod.RunAsGroup != nil {
		gid = *pod.RunAsGroup
	}
	if pod.RunAsNonRoot != nil {
		nonRoot = *pod.RunAsNonRoot
	}
	noNewPrivileges := false
	if c != nil {
		if c.RunAsUser != nil {
			uid = *c.RunAsUser
		}
		if c.RunAsGroup != nil {
			gid = *c.RunAsGroup
		}
		if c.RunAsNonRoot != nil {
			nonRoot = *c.RunAsNonRoot
		}
		noNewPrivileges = c.AllowPrivilegeEscalation != nil && !*c.AllowPrivilegeEscalation
	}
	if nonRoot && uid == 0 {
		return nil, fmt.Errorf("runAsNonRoot is set but the container would run as root (CreateContainerConfigError)")
	}
	if uid == 0 && gid == 0 {
		return nil, nil
	}
	groups := []string{}
	if pod.FSGroup != nil {
		groups = append(groups, strconv.FormatInt(*pod.FSGroup, 10))
	}
	for _, g := range pod.SupplementalGroups {
		groups = append(groups, strconv.FormatInt(g, 10))
	}
	argv := []string{"/usr/bin/setpriv", "--reuid=" + strconv.FormatInt(uid, 10), "--regid=" + strconv.FormatInt(gid, 10)}
	if len(groups) > 0 {
		argv = append(argv, "--groups="+strings.Join(groups, ","))
	} else {
		argv = append(argv, "--clear-groups")
	}
	if noNewPrivileges {
		argv = append(argv, "--no-new-privs")
	}
	return append(argv, "--"), nil
}

func (r *podRunner) markDirty() {
	select {
	case r.dirty <- struct{}{}:
	default:
	}
}

// writeStatus writes the pod's status whenever a container's state changes, skipping
// writes that would change nothing.
func (r *podRunner) writeStatus(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.dirty:
		}
		status := r.status()
		if equality.Semantic.DeepEqual(status, r.written) {
			continue
		}
		if err := r.agent.updateStatus(ctx, r.pod, func(s *corev1.PodStatus) { mergeStatus(s, status) }); err != nil {
			r.agent.logf("pod %s/%s: writing status: %v", r.pod.Namespace, r.pod.Name, err)
			continue
		}
		r.written = status
	}
}

func (r *podRunner) status() corev1.PodStatus {
	s := corev1.PodStatus{
		Phase: corev1.PodRunning, StartTime: &r.startTime,
		PodIP: r.ip.String(), PodIPs: []corev1.PodIP{{IP: r.ip.String()}},
		HostIP: r.agent.network.Gateway.Addr().String(),
	}
	ready := true
	for _, c := range r.containers {
		cs := c.status(c.spec.Image)
		ready = ready && cs.Ready
		s.ContainerStatuses = append(s.ContainerStatuses, cs)
	}
	s.Conditions = readiness(ready, r.startTime)
	return s
}

// stop ends the containers (each within the pod's grace period), then removes the network.
// The pod's directory stays, with the containers' logs.
func (r *podRunner) stop() {
	r.cancel()
	r.running.Wait()
	r.release()
}

func (r *podRunner) release() {
	r.agent.network.detach(r.netns, r.veth)
	r.agent.network.release(r.ip)
	_ = os.RemoveAll(filepath.Join(r.dir, "overlays"))
}

// readiness is the pod's conditions as kubelet sets them for a pod whose containers have
// started, with Ready following the containers' readiness.
func readiness(ready bool, since metav1.Time) []corev1.PodCondition {
	value := corev1.ConditionFalse
	if ready {
		value = corev1.ConditionTrue
	}
	return []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: since},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: since},
		{Type: corev1.ContainersReady, Status: value, LastTransitionTime: since},
		{Type: corev1.PodReady, Status: value, LastTransitionTime: since},
	}
}

// mergeStatus lays what the node reports over the pod's status, keeping what others own
// (PodScheduled, the nominated node, the QoS class).
func mergeStatus(into *corev1.PodStatus, from corev1.PodStatus) {
	kept := []corev1.PodCondition{}
	for _, c := range into.Conditions {
		owned := false
		for _, f := range from.Conditions {
			owned = owned || f.Type == c.Type
		}
		if !owned {
			kept = append(kept, c)
		}
	}
	for _, f := range from.Conditions {
		for _, c := range into.Conditions {
			if c.Type == f.Type && c.Status == f.Status {
				f.LastTransitionTime = c.LastTransitionTime
			}
		}
		kept = append(kept, f)
	}
	into.Conditions = kept
	into.Phase, into.StartTime = from.Phase, from.StartTime
	into.PodIP, into.PodIPs, into.HostIP = from.PodIP, from.PodIPs, from.HostIP
	into.ContainerStatuses = from.ContainerStatuses
}

// updateStatus applies change to the pod's latest status, retrying on conflicts.
func (a *Agent) updateStatus(ctx context.Context, pod *corev1.Pod, change func(*corev1.PodStatus)) error {
	pods := a.cfg.Client.CoreV1().Pods(pod.Namespace)
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		latest, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if latest.UID != pod.UID {
			return fmt.Errorf("pod was replaced (uid %s, was %s)", latest.UID, pod.UID)
		}
		change(&latest.Status)
		_, err = pods.UpdateStatus(ctx, latest, metav1.UpdateOptions{})
		return err
	})
}
