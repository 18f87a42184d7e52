// Package chart runs the Helm chart through the real helm against the local control plane:
// lint, install in both modes, upgrade, uninstall, and the chart's RBAC as the real
// authorizer judges it. How the chart renders, and each refusal of its values, is checked
// with the same helm by the C++ suites in test/manifests.
package chart

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"scheduler-extender/test/e2e/framework"
)

var env *framework.Environment

func TestMain(m *testing.M) {
	os.Exit(framework.RunSuite(m, framework.Shape{Nodes: 4, Zones: 2}, &env))
}

// TestLint: the chart passes `helm lint --strict` with its defaults and every ci/ values file.
func TestLint(t *testing.T) {
	ctx := context.Background()
	helm := env.Helm()
	files, err := filepath.Glob(filepath.Join(helm.Chart, "ci", "*-values.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no ci/*-values.yaml in %s: %v", helm.Chart, err)
	}
	for _, values := range append([]string{""}, files...) {
		name := filepath.Base(values)
		if values == "" {
			name = "defaults"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"lint", "--strict", helm.Chart}
			if values != "" {
				args = append(args, "--values", values)
			}
			if out, err := helm.Run(ctx, args...); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

// TestKubeSchedulerIsTheReleaseTested: the chart's default kube-scheduler image is the release
// this suite built and ran, and the binary says so.
func TestKubeSchedulerIsTheReleaseTested(t *testing.T) {
	pinned, err := framework.PinnedVersion("k8s.io/kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(env.Helm().Chart, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		KubeScheduler struct {
			Image struct{ Repository, Tag string }
		} `json:"kubeScheduler"`
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	if values.KubeScheduler.Image.Tag != pinned {
		t.Errorf("values.yaml's kubeScheduler.image.tag is %s; the suite tests %s (scripts/pin-kubernetes.sh moves both)", values.KubeScheduler.Image.Tag, pinned)
	}
	out, err := exec.Command(filepath.Join(env.KubernetesBin, "kube-scheduler"), "--version").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "Kubernetes "+pinned {
		t.Errorf("kube-scheduler --version says %q, want Kubernetes %s", got, pinned)
	}
}

// TestInstallUpgradeUninstall: in each mode, helm installs the chart (every object validated
// by the API server, every pod ready), upgrades it with changed values (the pods roll to
// them) and uninstalls it, leaving nothing of the release behind.
func TestInstallUpgradeUninstall(t *testing.T) {
	for _, mode := range []struct {
		name      string
		mutualTLS bool
	}{{"sidecar", false}, {"service", true}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx := context.Background()
			release, namespace := "life-"+mode.name, "life-"+mode.name
			values := map[string]any{"extender": map[string]any{"verbosity": 1}}
			// Kept: the test uninstalls it itself, and judges what is left.
			r := env.InstallKept(ctx, t, release, namespace, values, mode.mutualTLS)
			helm := env.Helm()

			upgraded := map[string]any{
				"extender":     map[string]any{"verbosity": 3},
				"registration": map[string]any{"weight": 4},
				"replicas":     2,
			}
			if mode.mutualTLS {
				upgraded["mode"], upgraded["tls"] = "service", r.TLSValues
			}
			if out, err := helm.Upgrade(ctx, release, namespace, upgraded); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			config, err := env.Client.CoreV1().ConfigMaps(namespace).Get(ctx, release+"-scheduler-extender-scheduler-config", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(config.Data["config.yaml"], "weight: 4") {
				t.Errorf("the upgraded scheduler configuration has no weight 4:\n%s", config.Data["config.yaml"])
			}
			schedulers, err := r.Pods(ctx, "scheduler")
			if err != nil {
				t.Fatal(err)
			}
			if len(schedulers) != 2 {
				t.Errorf("%d kube-scheduler pods after the upgrade to 2 replicas", len(schedulers))
			}
			extenders, err := r.Pods(ctx, r.ExtenderComponent())
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range extenders {
				for _, c := range p.Spec.Containers {
					if c.Name == "extender" && !contains(c.Args, "--v=3") {
						t.Errorf("extender of pod %s still runs with %v", p.Name, c.Args)
					}
				}
			}

			if out, err := helm.Uninstall(ctx, release, namespace); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if left := leftovers(ctx, t, release); len(left) > 0 {
				t.Errorf("uninstall left %s", strings.Join(left, ", "))
			}
		})
	}
}

// leftovers lists every object, in any namespace or none, that carries the release's
// instance label, and helm's own record of the release.
func leftovers(ctx context.Context, t *testing.T, release string) []string {
	t.Helper()
	client, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	lists, err := env.Client.Discovery().ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	err = wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, list := range lists {
			gv, err := schema.ParseGroupVersion(list.GroupVersion)
			if err != nil {
				return false, err
			}
			for _, resource := range list.APIResources {
				if !contains(resource.Verbs, "list") || strings.Contains(resource.Name, "/") {
					continue
				}
				objects, err := client.Resource(gv.WithResource(resource.Name)).List(ctx, metav1.ListOptions{
					LabelSelector: "app.kubernetes.io/instance=" + release,
				})
				if err != nil {
					continue
				}
				for _, o := range objects.Items {
					left = append(left, resource.Name+" "+o.GetNamespace()+"/"+o.GetName())
				}
			}
		}
		secrets, err := env.Client.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + release})
		if err != nil {
			return false, err
		}
		for _, s := range secrets.Items {
			left = append(left, "helm's record "+s.Namespace+"/"+s.Name)
		}
		return len(left) == 0, nil
	})
	sort.Strings(left)
	return left
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
