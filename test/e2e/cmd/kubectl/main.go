// Command kubectl is upstream's kubectl, built from the release pinned in go.mod, so that the
// local cluster can be inspected by hand and the tests can roll Deployments as users do.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	// -v has to reach klog before the command is built: kubectl logs while it reads .kuberc.
	_, _ = logs.GlogSetter(cmd.GetLogVerbosity(os.Args))
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
