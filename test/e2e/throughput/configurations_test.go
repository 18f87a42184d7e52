package throughput

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"scheduler-extender/test/e2e/framework"
)

// The three configurations compared. The chart's own rendering (helm template of
// manifests/scheduler-extender) is the source of the KubeSchedulerConfiguration, the
// extender's framework configuration and the extender's arguments, so that they are exactly
// what the chart installs; only what a host process needs instead of a pod is changed (the
// extender's addresses, file paths, kube-scheduler's kubeconfig).
type configuration struct {
	name     string
	extender bool
	values   map[string]any // chart values beyond the common ones
}

var configurations = []configuration{
	{name: "in-tree", extender: false, values: map[string]any{}},
	{name: "chart-default", extender: true, values: map[string]any{}},
	{name: "exclusive", extender: true, values: map[string]any{
		"registration": map[string]any{"exclusiveInterPodAffinity": true, "bindVerb": "bind"},
	}},
}

// rendered is what the chart renders for one configuration.
type rendered struct {
	schedulerConfig map[string]any // the KubeSchedulerConfiguration
	frameworkConfig string         // the extender's --config file
	extenderArgs    []string       // the sidecar container's args
}

// render runs helm template with the configuration's values: schedulerName default-scheduler
// (the profile the pods use), leader election off (one kube-scheduler), sidecar mode.
func render(ctx context.Context, helm framework.Helm, dir string, c configuration) (rendered, error) {
	values := map[string]any{
		"schedulerName":  "default-scheduler",
		"leaderElection": map[string]any{"enabled": false},
		"mode":           "sidecar",
	}
	for k, v := range c.values {
		values[k] = v
	}
	file, err := framework.ValuesFile(dir, values)
	if err != nil {
		return rendered{}, err
	}
	out, err := helm.Run(ctx, "template", "sx", helm.Chart, "--values", file,
		"--show-only", "templates/configmap-scheduler.yaml",
		"--show-only", "templates/configmap-extender.yaml",
		"--show-only", "templates/deployment-scheduler.yaml")
	if err != nil {
		return rendered{}, err
	}
	var r rendered
	for _, doc := range strings.Split(out, "\n---") {
		var obj struct {
			Kind     string                `json:"kind"`
			Metadata struct{ Name string } `json:"metadata"`
			Data     map[string]string     `json:"data"`
			Spec     struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name string   `json:"name"`
							Args []string `json:"args"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			return rendered{}, fmt.Errorf("helm template output: %v", err)
		}
		switch {
		case obj.Kind == "ConfigMap" && strings.HasSuffix(obj.Metadata.Name, "-scheduler-config"):
			if err := yaml.Unmarshal([]byte(obj.Data["config.yaml"]), &r.schedulerConfig); err != nil {
				return rendered{}, fmt.Errorf("rendered KubeSchedulerConfiguration: %v", err)
			}
		case obj.Kind == "ConfigMap" && strings.HasSuffix(obj.Metadata.Name, "-extender-config"):
			r.frameworkConfig = obj.Data["config.yaml"]
		case obj.Kind == "Deployment":
			for _, container := range obj.Spec.Template.Spec.Containers {
				if container.Name == "extender" {
					r.extenderArgs = container.Args
				}
			}
		}
	}
	if r.schedulerConfig == nil || r.frameworkConfig == "" || r.extenderArgs == nil {
		return rendered{}, fmt.Errorf("helm template did not render the scheduler config, the extender config and the extender container:\n%s", out)
	}
	return r, nil
}

// hostExtenderArgs turns the sidecar's args into a host process's: both listeners on a free
// loopback port, the framework configuration from a file in dir, the cluster from the
// kubeconfig.
func (r rendered) hostExtenderArgs(dir, kubeconfig string) ([]string, error) {
	configFile := filepath.Join(dir, "extender-config.yaml")
	if err := os.WriteFile(configFile, []byte(r.frameworkConfig), 0o644); err != nil {
		return nil, err
	}
	args := []string{"--kubeconfig", kubeconfig}
	for _, a := range r.extenderArgs {
		switch {
		case strings.HasPrefix(a, "--listen="):
			a = "--listen=127.0.0.1:0"
		case strings.HasPrefix(a, "--metrics-listen="):
			a = "--metrics-listen=127.0.0.1:0"
		case strings.HasPrefix(a, "--config="):
			a = "--config=" + configFile
		}
		args = append(args, a)
	}
	return args, nil
}

// schedulerConfigFile writes the KubeSchedulerConfiguration kube-scheduler runs with: the
// chart's, calling the extender at extenderURL (without the extenders stanza for in-tree),
// with the client connection of scheduler_perf (QPS and burst 5000) unless qps is 0.
func (r rendered) schedulerConfigFile(dir, kubeconfig, extenderURL string, qps int) (string, string, error) {
	config := map[string]any{}
	for k, v := range r.schedulerConfig {
		config[k] = v
	}
	connection := map[string]any{"kubeconfig": kubeconfig}
	if qps > 0 {
		connection["qps"] = qps
		connection["burst"] = qps
	}
	config["clientConnection"] = connection
	if extenderURL == "" {
		delete(config, "extenders")
	} else {
		extenders, ok := config["extenders"].([]any)
		if !ok || len(extenders) != 1 {
			return "", "", fmt.Errorf("rendered KubeSchedulerConfiguration has no single extender: %v", config["extenders"])
		}
		extender := extenders[0].(map[string]any)
		extender["urlPrefix"] = extenderURL
	}
	data, err := yaml.Marshal(config)
	if err != nil {
		return "", "", err
	}
	file := filepath.Join(dir, "kube-scheduler-config.yaml")
	return file, string(data), os.WriteFile(file, data, 0o644)
}
