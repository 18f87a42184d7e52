package framework

import (
	"path/filepath"

	"scheduler-extender/test/e2e/nodeagent"
)

// Images the node agent runs, by the last segment of their repository: the chart's two, each
// by the binary built here.
const (
	KubeSchedulerImage = "kube-scheduler"
	ExtenderImage      = "scheduler-extender"
)

// StartNodeAgent runs the node agent for the cluster, with the chart's images standing for
// the binaries the repository built: kube-scheduler's image runs build/kubernetes/bin's
// (as root unless the pod says otherwise, as the image does), the extender's runs
// build/scheduler-extender (as 65532, its image's USER).
func (c *Cluster) StartNodeAgent(logf func(string, ...any)) (*nodeagent.Agent, error) {
	return nodeagent.New(nodeagent.Config{
		Client:    c.Client,
		APIServer: c.APIServer,
		Images: map[string]nodeagent.Image{
			KubeSchedulerImage: {Path: []string{c.KubernetesBin}},
			ExtenderImage:      {Entrypoint: []string{c.ExtenderBinary}, User: 65532},
		},
		WorkDir: filepath.Join(c.Dir, "node"),
		Logf:    logf,
	})
}
