package framework

import (
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Release is the chart installed by helm into the cluster.
type Release struct {
	Name, Namespace string
	// Scheduler is the schedulerName the release's kube-scheduler serves: its full name.
	Scheduler string
	// SchedulerUser and ExtenderUser are the service accounts of kube-scheduler and the
	// extender, as the API server's audit log names them (one account in sidecar mode).
	SchedulerUser, ExtenderUser string
	MutualTLS                   bool
	// TLSValues are the tls values a mutual-TLS release was installed with, for upgrades.
	TLSValues map[string]any
	env       *Environment
}

// ClientName is the name in kube-scheduler's client certificate that a mutual-TLS release
// allows on the extender's scheduling verbs.
const ClientName = "kube-scheduler-client"

// Install installs the chart as release name in namespace with values, waits until its pods
// are ready, and uninstalls it when the test ends. With mutualTLS it runs in service mode over
// mutual TLS with the client allow-list: a CA signs the extender's serving certificate and
// kube-scheduler's client certificate into the Secrets the values name, as cert-manager would.
func (e *Environment) Install(ctx context.Context, t testing.TB, name, namespace string, values map[string]any, mutualTLS bool) *Release {
	t.Helper()
	r := e.InstallKept(ctx, t, name, namespace, values, mutualTLS)
	t.Cleanup(func() {
		if out, err := e.Helm().Uninstall(context.Background(), name, namespace); err != nil {
			t.Errorf("uninstalling the chart: %v\n%s", err, out)
		}
		_ = e.Client.CoreV1().Namespaces().Delete(context.Background(), namespace, metav1.DeleteOptions{})
	})
	return r
}

// InstallKept installs as Install does, and leaves the release installed: the test judges its
// uninstall itself.
func (e *Environment) InstallKept(ctx context.Context, t testing.TB, name, namespace string, values map[string]any, mutualTLS bool) *Release {
	t.Helper()
	fullname := name + "-scheduler-extender"
	r := &Release{
		Name: name, Namespace: namespace, Scheduler: fullname, MutualTLS: mutualTLS, env: e,
		SchedulerUser: "system:serviceaccount:" + namespace + ":" + fullname,
		ExtenderUser:  "system:serviceaccount:" + namespace + ":" + fullname,
	}
	values = maps.Clone(values)
	if values == nil {
		values = map[string]any{}
	}
	if mutualTLS {
		r.ExtenderUser += "-extender"
		ca, err := NewAuthority(name + "-ca")
		if err != nil {
			t.Fatal(err)
		}
		service := fullname + "-extender." + namespace + ".svc"
		if err := ca.TLSSecret(ctx, e.Client, namespace, name+"-extender-tls", service, []string{service}, true); err != nil {
			t.Fatal(err)
		}
		if err := ca.TLSSecret(ctx, e.Client, namespace, name+"-scheduler-client", ClientName, nil, false); err != nil {
			t.Fatal(err)
		}
		r.TLSValues = map[string]any{
			"enabled": true, "serverSecretName": name + "-extender-tls",
			"clientAuth": map[string]any{"enabled": true, "clientSecretName": name + "-scheduler-client", "clientName": ClientName},
		}
		values["mode"], values["tls"] = "service", r.TLSValues
	}
	if out, err := e.Helm().Install(ctx, name, namespace, values); err != nil {
		t.Fatalf("installing the chart: %v\n%s", err, out)
	}
	return r
}

// Pods lists the release's running pods of a component ("scheduler" or "extender"; in sidecar
// mode the extender runs in the scheduler's pods).
func (r *Release) Pods(ctx context.Context, component string) ([]corev1.Pod, error) {
	list, err := r.env.Client.CoreV1().Pods(r.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: "app.kubernetes.io/instance=" + r.Name + ",app.kubernetes.io/component=" + component,
	})
	if err != nil {
		return nil, err
	}
	var running []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.PodIP != "" {
			running = append(running, p)
		}
	}
	return running, nil
}

// ExtenderComponent is the component whose pods run the extender container.
func (r *Release) ExtenderComponent() string {
	if r.MutualTLS {
		return "extender"
	}
	return "scheduler"
}

// Probe reads an extender pod's /readyz and /metrics.
func (r *Release) Probe(pod *corev1.Pod) ExtenderProbe {
	return ExtenderProbe{Pod: pod, Port: 8889, TLS: r.MutualTLS}
}
