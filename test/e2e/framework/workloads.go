package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"scheduler-extender/test/e2e/checker"
)

// PauseImage is what the workloads' containers name; the node agent runs none of them.
const PauseImage = "registry.k8s.io/pause:3.10"

// Deployment builds a workload: replicas of one container that requests cpu, labelled
// app=<name>, scheduled by scheduler.
type Deployment struct{ appsv1.Deployment }

// NewDeployment starts a Deployment of replicas pods labelled app=name.
func NewDeployment(namespace, name, scheduler string, replicas int32) *Deployment {
	labels := map[string]string{"app": name}
	return &Deployment{appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					SchedulerName: scheduler,
					Containers: []corev1.Container{{
						Name: "app", Image: PauseImage,
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi"),
						}},
					}},
				},
			},
		},
	}}
}

func (d *Deployment) affinity() *corev1.Affinity {
	spec := &d.Spec.Template.Spec
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	return spec.Affinity
}

func (d *Deployment) podAffinity() *corev1.PodAffinity {
	a := d.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	return a.PodAffinity
}

func (d *Deployment) podAntiAffinity() *corev1.PodAntiAffinity {
	a := d.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	return a.PodAntiAffinity
}

// Label adds a label to the pods (and keeps app=<name> as the selector).
func (d *Deployment) Label(key, value string) *Deployment {
	d.Spec.Template.Labels[key] = value
	return d
}

// RequiredAffinity adds a required pod affinity term.
func (d *Deployment) RequiredAffinity(t corev1.PodAffinityTerm) *Deployment {
	a := d.podAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return d
}

// RequiredAntiAffinity adds a required pod anti-affinity term.
func (d *Deployment) RequiredAntiAffinity(t corev1.PodAffinityTerm) *Deployment {
	a := d.podAntiAffinity()
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return d
}

// PreferredAffinity adds a preferred pod affinity term of the weight.
func (d *Deployment) PreferredAffinity(weight int32, t corev1.PodAffinityTerm) *Deployment {
	a := d.podAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return d
}

// PreferredAntiAffinity adds a preferred pod anti-affinity term of the weight.
func (d *Deployment) PreferredAntiAffinity(weight int32, t corev1.PodAffinityTerm) *Deployment {
	a := d.podAntiAffinity()
	a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return d
}

// CPU sets the container's CPU request.
func (d *Deployment) CPU(quantity string) *Deployment {
	d.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse(quantity)
	return d
}

// Priority gives the pods a PriorityClass.
func (d *Deployment) Priority(class string) *Deployment {
	d.Spec.Template.Spec.PriorityClassName = class
	return d
}

// OnNode pins the pods to a node by its hostname label (a nodeSelector, which the extender
// leaves to kube-scheduler).
func (d *Deployment) OnNode(node string) *Deployment {
	d.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
	return d
}

// Create creates the Deployment.
func (d *Deployment) Create(ctx context.Context, client kubernetes.Interface) error {
	_, err := client.AppsV1().Deployments(d.Namespace).Create(ctx, &d.Deployment, metav1.CreateOptions{})
	return err
}

// Selector selects the Deployment's pods.
func (d *Deployment) Selector() labels.Selector {
	return labels.SelectorFromSet(d.Spec.Selector.MatchLabels)
}

// Term is a pod affinity term over topologyKey selecting pods with the labels.
func Term(topologyKey string, selector map[string]string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}
}

// Topology keys of the local cluster's nodes.
const (
	Hostname = "kubernetes.io/hostname"
	Zone     = "topology.kubernetes.io/zone"
)

// WaitForPods waits until the pods selector selects in namespace are exactly want, all bound
// and none terminating, and returns them; on timeout it says which are not.
func WaitForPods(ctx context.Context, client kubernetes.Interface, namespace string, selector labels.Selector, want int, timeout time.Duration) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	var why string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return false, err
		}
		pods = list.Items
		var pending []string
		for _, p := range pods {
			if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
				pending = append(pending, p.Name+": "+podProblem(p))
			}
		}
		why = fmt.Sprintf("%d pods (want %d), not bound or terminating: %s", len(pods), want, strings.Join(pending, "; "))
		return len(pods) == want && len(pending) == 0, nil
	})
	if err != nil {
		return pods, fmt.Errorf("pods %s in %s: %s (%w)", selector, namespace, why, err)
	}
	return pods, nil
}

// podProblem is what a pod's conditions say about it.
func podProblem(p corev1.Pod) string {
	if p.DeletionTimestamp != nil {
		return "terminating"
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Reason + ": " + c.Message
		}
	}
	return "not scheduled yet"
}

// NodesOf lists the nodes the pods run on, sorted, with repeats.
func NodesOf(pods []corev1.Pod) []string {
	var nodes []string
	for _, p := range pods {
		nodes = append(nodes, p.Spec.NodeName)
	}
	sort.Strings(nodes)
	return nodes
}

// WaitUnschedulable waits until every pod of the Deployment has been refused by its scheduler
// (PodScheduled False, reason Unschedulable) and none is bound: a placement that must not
// happen, seen not to, once the scheduler has tried.
func WaitUnschedulable(ctx context.Context, client kubernetes.Interface, d *Deployment, timeout time.Duration) error {
	var why string
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: d.Selector().String()})
		if err != nil {
			return false, err
		}
		refused := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				return false, fmt.Errorf("pod %s/%s was placed on %s", p.Namespace, p.Name, p.Spec.NodeName)
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					refused++
				}
			}
		}
		why = fmt.Sprintf("%d of %d pods refused", refused, *d.Spec.Replicas)
		return refused == int(*d.Spec.Replicas), nil
	})
	if err != nil {
		return fmt.Errorf("deployment %s/%s: %s: %w", d.Namespace, d.Name, why, err)
	}
	return nil
}

// NoViolations judges the cluster's final state with the checker and fails the test for each
// required term broken; it returns the report.
func NoViolations(ctx context.Context, t testing.TB, client kubernetes.Interface) checker.Report {
	t.Helper()
	report, err := checker.CheckCluster(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range report.Violations {
		t.Errorf("violation: %s", v)
	}
	return report
}
