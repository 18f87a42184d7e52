package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// Helm runs the helm built from the pinned release against the cluster, with the chart of
// this repository.
type Helm struct {
	Binary     string
	Kubeconfig string
	Chart      string // manifests/scheduler-extender
	Home       string // helm's cache, configuration and data, kept apart from the user's
}

// Helm returns the helm of the cluster's binaries, configured for it.
func (c *Cluster) Helm() Helm {
	return Helm{
		Binary:     filepath.Join(c.KubernetesBin, "helm"),
		Kubeconfig: c.Kubeconfig,
		Chart:      filepath.Join(c.Repo, "manifests", "scheduler-extender"),
		Home:       filepath.Join(c.Dir, "helm"),
	}
}

// Run runs helm with args and returns what it printed, stdout and stderr together, as a user
// sees it.
func (h Helm) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, h.Binary, args...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+h.Kubeconfig,
		"HELM_CACHE_HOME="+filepath.Join(h.Home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(h.Home, "config"),
		"HELM_DATA_HOME="+filepath.Join(h.Home, "data"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("helm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// ValuesFile writes values as a YAML file in dir for --values.
func ValuesFile(dir string, values map[string]any) (string, error) {
	data, err := yaml.Marshal(values)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "values-*.yaml")
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.Write(data)
	return f.Name(), err
}

// Install runs `helm install` of the chart as release into namespace (created if missing),
// with values, and waits until its Deployments are available.
func (h Helm) Install(ctx context.Context, release, namespace string, values map[string]any) (string, error) {
	return h.apply(ctx, "install", release, namespace, values)
}

// Upgrade runs `helm upgrade` of the release with values, and waits as Install does.
func (h Helm) Upgrade(ctx context.Context, release, namespace string, values map[string]any) (string, error) {
	return h.apply(ctx, "upgrade", release, namespace, values)
}

func (h Helm) apply(ctx context.Context, verb, release, namespace string, values map[string]any) (string, error) {
	file, err := ValuesFile(os.TempDir(), values)
	if err != nil {
		return "", err
	}
	defer os.Remove(file)
	args := []string{verb, release, h.Chart, "--namespace", namespace, "--values", file, "--wait", "--timeout", "3m"}
	if verb == "install" {
		args = append(args, "--create-namespace")
	}
	return h.Run(ctx, args...)
}

// Uninstall removes the release and waits for its objects to be gone.
func (h Helm) Uninstall(ctx context.Context, release, namespace string) (string, error) {
	return h.Run(ctx, "uninstall", release, "--namespace", namespace, "--wait", "--timeout", "2m")
}
