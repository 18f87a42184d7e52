// Package framework drives the upstream components the end-to-end suite runs: the local
// control plane of scripts/local-cluster.sh, a default kube-scheduler for the chart's own
// pods, helm, and the node agent that runs the chart's pods.
package framework

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Paths of the repository and of what its builds produced.
type Paths struct {
	Repo           string // the repository's root
	KubernetesBin  string // build/kubernetes/bin: etcd, kube-apiserver, kube-scheduler, kubectl, helm, ...
	ExtenderBinary string // build/scheduler-extender
}

// DefaultPaths finds the repository from this package's directory (test/e2e/framework) or
// from $SX_REPO, and the binaries where scripts/build.sh and scripts/build-kubernetes.sh put
// them, overridable with $SX_BINARY and $KUBERNETES_BIN.
func DefaultPaths() (Paths, error) {
	repo := os.Getenv("SX_REPO")
	if repo == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Paths{}, err
		}
		for dir := wd; dir != "/"; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "scripts", "local-cluster.sh")); err == nil {
				repo = dir
				break
			}
		}
		if repo == "" {
			return Paths{}, fmt.Errorf("no repository above %s (set SX_REPO)", wd)
		}
	}
	p := Paths{
		Repo:           repo,
		KubernetesBin:  envOr("KUBERNETES_BIN", filepath.Join(repo, "build", "kubernetes", "bin")),
		ExtenderBinary: envOr("SX_BINARY", filepath.Join(repo, "build", "scheduler-extender")),
	}
	for _, b := range []string{filepath.Join(p.KubernetesBin, "kube-scheduler"), filepath.Join(p.KubernetesBin, "helm"), p.ExtenderBinary} {
		if _, err := os.Stat(b); err != nil {
			return Paths{}, fmt.Errorf("%s is missing: run scripts/build.sh and scripts/build-kubernetes.sh", b)
		}
	}
	return p, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// Cluster is a control plane started by scripts/local-cluster.sh in Dir.
type Cluster struct {
	Paths
	Dir        string
	Kubeconfig string // cluster-admin
	Config     *rest.Config
	Client     kubernetes.Interface
	APIServer  string // host:port
	EtcdURL    string
}

// StartCluster brings a control plane up in dir with the given nodes over zones.
func StartCluster(paths Paths, dir string, nodes, zones int) (*Cluster, error) {
	args := []string{"up", dir}
	if nodes > 0 {
		args = append(args, "--nodes", fmt.Sprint(nodes), "--zones", fmt.Sprint(zones))
	}
	if _, err := (&Cluster{Paths: paths}).script(args...); err != nil {
		return nil, err
	}
	return OpenCluster(paths, dir)
}

// OpenCluster connects to a control plane local-cluster.sh started in dir.
func OpenCluster(paths Paths, dir string) (*Cluster, error) {
	c := &Cluster{Paths: paths, Dir: dir, Kubeconfig: filepath.Join(dir, "admin.kubeconfig")}
	env, err := readEnv(filepath.Join(dir, "cluster.env"))
	if err != nil {
		return nil, err
	}
	c.APIServer = "127.0.0.1:" + env["APISERVER_PORT"]
	c.EtcdURL = "http://127.0.0.1:" + env["ETCD_PORT"]
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, err
	}
	c.Config.QPS, c.Config.Burst = 200, 400
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops the control plane; its directory stays, with the logs.
func (c *Cluster) Stop() error {
	_, err := c.script("down", c.Dir)
	return err
}

// Restart stops one component (etcd, kube-apiserver, kube-controller-manager) and starts it
// again on its ports and data, returning once it is ready.
func (c *Cluster) Restart(component string) error {
	_, err := c.script("restart", c.Dir, component)
	return err
}

func (c *Cluster) script(args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(c.Repo, "scripts", "local-cluster.sh"), args...)
	cmd.Env = append(os.Environ(), "KUBERNETES_BIN="+c.KubernetesBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("local-cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Compact compacts etcd's history up to its current revision, so that a watch from any
// older resourceVersion is answered 410 Gone once kube-apiserver's watch cache no longer
// holds it.
func (c *Cluster) Compact(ctx context.Context) (int64, error) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{c.EtcdURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		return 0, err
	}
	defer client.Close()
	status, err := client.Status(ctx, c.EtcdURL)
	if err != nil {
		return 0, err
	}
	revision := status.Header.Revision
	_, err = client.Compact(ctx, revision, clientv3.WithCompactPhysical())
	return revision, err
}

// Kubectl runs the built kubectl against the cluster as cluster-admin.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.KubernetesBin, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Process is a host process the framework started, with its output in a log file.
type Process struct {
	cmd    *exec.Cmd
	Log    string
	exited chan struct{}
}

// StartProcess starts a binary with its output appended to log; it is killed with the
// test binary.
func StartProcess(log string, name string, args ...string) (*Process, error) {
	out, err := os.OpenFile(log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, Log: log, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	return p, nil
}

// Stop sends SIGTERM and waits, with SIGKILL after 10 s.
func (p *Process) Stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// StartDefaultScheduler runs kube-scheduler with its defaults as `default-scheduler`, the
// scheduler of the chart's own pods (the chart installs a second scheduler, not the first).
func (c *Cluster) StartDefaultScheduler() (*Process, error) {
	return StartProcess(filepath.Join(c.Dir, "logs", "default-scheduler.log"),
		filepath.Join(c.KubernetesBin, "kube-scheduler"),
		"--kubeconfig", filepath.Join(c.Dir, "scheduler.kubeconfig"),
		"--authentication-kubeconfig", filepath.Join(c.Dir, "scheduler.kubeconfig"),
		"--authorization-kubeconfig", filepath.Join(c.Dir, "scheduler.kubeconfig"),
		"--leader-elect=false", "--bind-address=127.0.0.1", "--secure-port=0")
}

func readEnv(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if k, v, ok := strings.Cut(scanner.Text(), "="); ok {
			env[k] = v
		}
	}
	return env, scanner.Err()
}

// PinnedVersion is the version test/e2e/go.mod requires of a module: the release the suite
// builds and runs.
func PinnedVersion(module string) (string, error) {
	paths, err := DefaultPaths()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(paths.Repo, "test", "e2e", "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	return "", fmt.Errorf("test/e2e/go.mod does not require %s", module)
}
