package framework

import (
	"fmt"
	"log"
	"os"
	"testing"

	"scheduler-extender/test/e2e/nodeagent"
)

// Environment is what a suite's tests share: a control plane with its nodes, the default
// kube-scheduler that places the chart's own pods, and the node agent that runs them.
type Environment struct {
	*Cluster
	Agent *nodeagent.Agent
	// DefaultScheduler schedules pods that name no scheduler: the chart's pods.
	DefaultScheduler *Process
}

// Shape of the environment's cluster.
type Shape struct{ Nodes, Zones int }

// RunSuite sets the environment up for a test binary, runs its tests and tears it down;
// TestMain calls it. The cluster's directory (logs, audit log, the pods' logs) is kept when
// a test fails and printed, removed otherwise. It needs root: the node agent makes network
// namespaces, bridges and mounts.
func RunSuite(m *testing.M, shape Shape, env **Environment) int {
	if os.Geteuid() != 0 {
		fmt.Fprintln(os.Stderr, "the end-to-end suite needs root: its node agent makes network namespaces, a bridge and mounts for the pods it runs")
		return 1
	}
	paths, err := DefaultPaths()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "sx-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	e, err := start(paths, dir, shape)
	if err != nil {
		fmt.Fprintf(os.Stderr, "setting up the cluster in %s: %v\n", dir, err)
		return 1
	}
	*env = e
	code := m.Run()
	e.stop()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "the cluster's logs (components, audit, pods) are in %s\n", dir)
	} else {
		_ = os.RemoveAll(dir)
	}
	return code
}

func start(paths Paths, dir string, shape Shape) (*Environment, error) {
	cluster, err := StartCluster(paths, dir, shape.Nodes, shape.Zones)
	if err != nil {
		return nil, err
	}
	e := &Environment{Cluster: cluster}
	if e.DefaultScheduler, err = cluster.StartDefaultScheduler(); err != nil {
		e.stop()
		return nil, err
	}
	if e.Agent, err = cluster.StartNodeAgent(log.Printf); err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

func (e *Environment) stop() {
	if e.Agent != nil {
		e.Agent.Stop()
	}
	if e.DefaultScheduler != nil {
		e.DefaultScheduler.Stop()
	}
	if err := e.Cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}
