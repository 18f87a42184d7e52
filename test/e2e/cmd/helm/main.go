// Command helm is upstream's helm, at the version go.mod pins.
package main

import (
	"errors"
	"fmt"
	"os"

	helmcmd "helm.sh/helm/v4/pkg/cmd"
	"helm.sh/helm/v4/pkg/kube"
)

func main() {
	// The field manager helm writes into managedFields; left to itself it would take the
	// binary's name.
	kube.ManagedFieldsManager = "helm"
	root, err := helmcmd.NewRootCmd(os.Stdout, os.Args[1:], helmcmd.SetupLogging)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
	if err := root.Execute(); err != nil {
		var exit helmcmd.CommandError
		if errors.As(err, &exit) {
			os.Exit(exit.ExitCode)
		}
		os.Exit(1)
	}
}
