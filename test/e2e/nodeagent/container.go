package nodeagent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// container runs one of a pod's containers as a host process and restarts it when it exits
// (restartPolicy Always, the only policy a Deployment's pods have), with a back-off doubling
// from 1 s to at most 20 s: kubelet's ladder (10 s to 5 min) is shortened so that a test
// sees a crash loop's restarts within its time.
type container struct {
	spec    corev1.Container
	argv    []string // ip netns exec ... sh -c <mounts> sh setpriv ... <command> <args>
	env     []string
	logPath string
	podIP   string
	changed func() // the pod's status may need writing again

	mu           sync.Mutex
	process      *os.Process
	exited       chan struct{} // closed when the current process has exited
	startedAt    time.Time
	starts       int32  // restartCount is starts - 1
	waiting      string // CrashLoopBackOff while backing off, ContainerCreating before the first start
	lastState    *corev1.ContainerStateTerminated
	started      bool // the startup probe passed (or there is none)
	ready        bool
	probeFailure string // the last probe failure, for the agent's log
}

const maxBackOff = 20 * time.Second

// run keeps the container running until ctx ends, then stops it within grace.
func (c *container) run(ctx context.Context, grace time.Duration) {
	c.mu.Lock()
	c.waiting = "ContainerCreating"
	c.mu.Unlock()
	backOff := time.Second
	for {
		exited, err := c.start()
		if err != nil {
			c.record(&corev1.ContainerStateTerminated{ExitCode: 128, Reason: "StartError", Message: err.Error()})
		} else {
			probeCtx, stopProbes := context.WithCancel(ctx)
			go c.probe(probeCtx)
			select {
			case <-ctx.Done():
				stopProbes()
				c.stop(exited, grace)
				return
			case <-exited:
				stopProbes()
			}
		}
		c.mu.Lock()
		c.waiting = "CrashLoopBackOff"
		c.mu.Unlock()
		c.changed()
		select {
		case <-ctx.Done():
			return
		case <-time.After(backOff):
		}
		backOff = min(2*backOff, maxBackOff)
	}
}

func (c *container) start() (chan struct{}, error) {
	log, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group, so that stopping it reaches anything it forked; killed with the
	// agent while it still runs as root (the signal is cleared once setpriv changes user).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	exited := make(chan struct{})
	c.mu.Lock()
	c.process, c.exited, c.startedAt = cmd.Process, exited, time.Now()
	c.starts++
	c.waiting, c.started, c.ready = "", c.spec.StartupProbe == nil, false
	c.mu.Unlock()
	c.changed()
	go func() {
		err := cmd.Wait()
		log.Close()
		state := &corev1.ContainerStateTerminated{Reason: "Completed"}
		if err != nil {
			state.Reason, state.Message = "Error", err.Error()
			if exit, ok := err.(*exec.ExitError); ok {
				state.ExitCode = int32(exit.ExitCode())
				if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					state.ExitCode = 128 + int32(ws.Signal())
				}
			}
		}
		c.record(state)
		close(exited)
	}()
	return exited, nil
}

// record notes an exit as the container's last state.
func (c *container) record(state *corev1.ContainerStateTerminated) {
	c.mu.Lock()
	state.StartedAt = metav1.NewTime(c.startedAt)
	state.FinishedAt = metav1.Now()
	c.lastState, c.process = state, nil
	c.started, c.ready = false, false
	c.mu.Unlock()
	c.changed()
}

// stop sends SIGTERM to the process group and SIGKILL once grace has passed, as kubelet does.
func (c *container) stop(exited chan struct{}, grace time.Duration) {
	c.signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(grace):
		c.signal(syscall.SIGKILL)
		<-exited
	}
}

// kill ends the current process (a failed liveness or startup probe); run restarts it.
func (c *container) kill() { c.signal(syscall.SIGKILL) }

func (c *container) signal(sig syscall.Signal) {
	c.mu.Lock()
	p := c.process
	c.mu.Unlock()
	if p != nil {
		_ = syscall.Kill(-p.Pid, sig)
	}
}

// status is the container's ContainerStatus as kubelet reports it.
func (c *container) status(image string) corev1.ContainerStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := corev1.ContainerStatus{
		Name: c.spec.Name, Image: image, ImageID: image,
		Ready: c.ready, RestartCount: max(c.starts-1, 0), Started: &c.started,
		LastTerminationState: corev1.ContainerState{Terminated: c.lastState},
	}
	switch {
	case c.process != nil:
		s.ContainerID = "nodeagent://" + strconv.Itoa(c.process.Pid)
		s.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.startedAt)}
	case c.waiting != "":
		message := ""
		if c.waiting == "CrashLoopBackOff" && c.lastState != nil {
			message = fmt.Sprintf("back-off restarting failed container %s: exit code %d", c.spec.Name, c.lastState.ExitCode)
		}
		s.State.Waiting = &corev1.ContainerStateWaiting{Reason: c.waiting, Message: message}
	default:
		s.State.Terminated = c.lastState
	}
	return s
}
