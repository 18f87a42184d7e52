package scheduling

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"scheduler-extender/test/e2e/framework"
)

// configuration is one way of installing the chart.
type configuration struct {
	// exclusive: kube-scheduler's own InterPodAffinity is off and the extender alone
	// enforces affinity (registration.exclusiveInterPodAffinity, which needs bindVerb).
	exclusive        bool
	nodeCacheCapable bool
	bind             bool
	// mutualTLS: mode=service over HTTPS with client certificates and the client allow-list;
	// otherwise mode=sidecar over plain HTTP on 127.0.0.1.
	mutualTLS bool
}

func (c configuration) String() string {
	mode := "in-tree"
	if c.exclusive {
		mode = "exclusive"
	}
	transport := "sidecar-http"
	if c.mutualTLS {
		transport = "service-mtls"
	}
	return fmt.Sprintf("%s/nodeCacheCapable=%t/bind=%t/%s", mode, c.nodeCacheCapable, c.bind, transport)
}

// configurations is every combination the chart allows: in-tree affinity with and without
// bindVerb, exclusive affinity (bindVerb required), each with nodeCacheCapable true and false,
// over plain HTTP in sidecar mode and mutual TLS in service mode.
func configurations() []configuration {
	var out []configuration
	for _, exclusive := range []bool{false, true} {
		for _, bind := range []bool{false, true} {
			if exclusive && !bind {
				continue
			}
			for _, ncc := range []bool{true, false} {
				for _, mtls := range []bool{false, true} {
					out = append(out, configuration{exclusive: exclusive, nodeCacheCapable: ncc, bind: bind, mutualTLS: mtls})
				}
			}
		}
	}
	return out
}

// installation is a release of the chart that the scenarios schedule through.
type installation struct {
	configuration
	release, namespace string
	scheduler          string // the schedulerName its pods use
	schedulerUser      string // the service accounts that bind, as the audit log names them
	extenderUser       string
}

// The client certificate's name the extender accepts on its scheduling verbs.
const clientName = "kube-scheduler-client"

func (c configuration) values(release, namespace string) map[string]any {
	bindVerb := ""
	if c.bind {
		bindVerb = "bind"
	}
	values := map[string]any{
		"registration": map[string]any{
			"nodeCacheCapable":          c.nodeCacheCapable,
			"bindVerb":                  bindVerb,
			"exclusiveInterPodAffinity": c.exclusive,
		},
		"extender": map[string]any{"verbosity": 2},
	}
	if c.mutualTLS {
		values["mode"] = "service"
		values["tls"] = map[string]any{
			"enabled":          true,
			"serverSecretName": release + "-extender-tls",
			"clientAuth": map[string]any{
				"enabled": true, "clientSecretName": release + "-scheduler-client", "clientName": clientName,
			},
		}
	}
	return values
}

// install installs the chart in its configuration as release in namespace and waits for its
// pods to be ready; the release is uninstalled when the test ends.
func (c configuration) install(ctx context.Context, t *testing.T, release, namespace string) installation {
	t.Helper()
	fullname := release + "-scheduler-extender"
	in := installation{
		configuration: c, release: release, namespace: namespace, scheduler: fullname,
		schedulerUser: "system:serviceaccount:" + namespace + ":" + fullname,
		extenderUser:  "system:serviceaccount:" + namespace + ":" + fullname,
	}
	if c.mutualTLS {
		in.extenderUser += "-extender"
		ca, err := framework.NewAuthority(release + "-ca")
		if err != nil {
			t.Fatal(err)
		}
		service := fullname + "-extender." + namespace + ".svc"
		if err := ca.TLSSecret(ctx, env.Client, namespace, release+"-extender-tls", service, []string{service}, true); err != nil {
			t.Fatal(err)
		}
		if err := ca.TLSSecret(ctx, env.Client, namespace, release+"-scheduler-client", clientName, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	helm := env.Helm()
	if out, err := helm.Install(ctx, release, namespace, c.values(release, namespace)); err != nil {
		t.Fatalf("installing the chart: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := helm.Uninstall(context.Background(), release, namespace); err != nil {
			t.Errorf("uninstalling the chart: %v\n%s", err, out)
		}
		_ = env.Client.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
	})
	return in
}
