package chart

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// rights lists what the service account may do, as the API server's authorizer says (a
// SelfSubjectRulesReview made as that account), "group/resource: verb" each, beyond what
// every service account may (the namespace's default one: review its own access, read
// cluster trust bundles, ...).
func rights(ctx context.Context, t *testing.T, user, namespace string) []string {
	t.Helper()
	everyone := map[string]bool{}
	for _, r := range rulesOf(ctx, t, "system:serviceaccount:"+namespace+":default", namespace) {
		everyone[r] = true
	}
	var out []string
	for _, r := range rulesOf(ctx, t, user, namespace) {
		if !everyone[r] {
			out = append(out, r)
		}
	}
	return out
}

func rulesOf(ctx context.Context, t *testing.T, user, namespace string) []string {
	t.Helper()
	config := rest.CopyConfig(env.Config)
	config.Impersonate = rest.ImpersonationConfig{
		UserName: user,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	review, err := client.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
		Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, rule := range review.Status.ResourceRules {
		for _, group := range rule.APIGroups {
			for _, resource := range rule.Resources {
				for _, verb := range rule.Verbs {
					out = append(out, group+"/"+resource+": "+verb)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestExtenderRights: the extender's service account, judged by the real authorizer, may list
// and watch what its cache holds and create Bindings when kube-scheduler asks it to bind: that
// and nothing more.
func TestExtenderRights(t *testing.T) {
	ctx := context.Background()
	values := map[string]any{"registration": map[string]any{"bindVerb": "bind"}}
	r := env.Install(ctx, t, "rights", "rights", values, true)
	reads := []string{
		"/namespaces: get", "/namespaces: list", "/namespaces: watch",
		"/nodes: get", "/nodes: list", "/nodes: watch",
		"/pods: get", "/pods: list", "/pods: watch",
		"policy/poddisruptionbudgets: get", "policy/poddisruptionbudgets: list", "policy/poddisruptionbudgets: watch",
	}
	want := append([]string{"/pods/binding: create"}, reads...)
	sort.Strings(want)
	if got := rights(ctx, t, r.ExtenderUser, r.Namespace); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("with bindVerb the extender may:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	values = map[string]any{"mode": "service", "tls": r.TLSValues}
	if out, err := env.Helm().Upgrade(ctx, r.Name, r.Namespace, values); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := rights(ctx, t, r.ExtenderUser, r.Namespace); strings.Join(got, "\n") != strings.Join(reads, "\n") {
		t.Errorf("without bindVerb the extender may:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(reads, "\n"))
	}
}

// TestMissingPermissionIsNamed: an extender whose service account may not list pods stays
// unready, says which permission the API server refused (in /readyz, which kubectl describe
// shows, and in its log), and keeps running until the permission comes, then becomes ready
// without a restart.
func TestMissingPermissionIsNamed(t *testing.T) {
	ctx := context.Background()
	r := env.Install(ctx, t, "denied", "denied", nil, true)
	role := r.Scheduler + "-extender"
	clusterRole, err := env.Client.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	granted := clusterRole.DeepCopy().Rules
	for i, rule := range clusterRole.Rules {
		if contains(rule.Resources, "pods") {
			clusterRole.Rules[i].Resources = []string{"nodes", "namespaces"}
		}
	}
	if _, err := env.Client.RbacV1().ClusterRoles().Update(ctx, clusterRole, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A new extender pod starts with the reduced rights.
	old, err := r.Pods(ctx, "extender")
	if err != nil || len(old) != 1 {
		t.Fatalf("want one extender pod: %v %v", old, err)
	}
	if err := env.Client.CoreV1().Pods(r.Namespace).Delete(ctx, old[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	var body string
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := r.Pods(ctx, "extender")
		if err != nil || len(pods) != 1 || pods[0].UID == old[0].UID {
			return false, nil
		}
		pod = pods[0]
		_, body, err = r.Probe(&pod).Readyz(ctx)
		return err == nil && strings.Contains(body, "forbidden"), nil
	})
	if err != nil {
		t.Fatalf("/readyz never named the refusal: %q (%v)", body, err)
	}
	for _, want := range []string{`pods: LIST 403 Forbidden`, `cannot list resource \"pods\"`, r.ExtenderUser} {
		if !strings.Contains(body, want) {
			t.Errorf("/readyz says %s, without %s", body, want)
		}
	}
	log, err := os.ReadFile(env.Agent.LogPath(&pod, "extender"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `cannot list resource "pods"`) {
		t.Errorf("the extender's log does not name the refusal:\n%s", log)
	}

	// Granted again, it becomes ready, never restarted.
	if clusterRole, err = env.Client.RbacV1().ClusterRoles().Get(ctx, role, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	clusterRole.Rules = granted
	if _, err := env.Client.RbacV1().ClusterRoles().Update(ctx, clusterRole, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		code, _, err := r.Probe(&pod).Readyz(ctx)
		return err == nil && code == 200, nil
	})
	if err != nil {
		t.Errorf("the extender did not become ready once it could list pods: %v", err)
	}
	current, err := env.Client.CoreV1().Pods(r.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range current.Status.ContainerStatuses {
		if c.RestartCount != 0 {
			t.Errorf("container %s restarted %d times", c.Name, c.RestartCount)
		}
	}
}
