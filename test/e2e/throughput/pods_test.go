package throughput

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// createNamespaces creates the workload's namespaces from upstream's templates.
func createNamespaces(ctx context.Context, client kubernetes.Interface, tpl templates, specs []namespaceSpec) error {
	for _, spec := range specs {
		ns := &corev1.Namespace{}
		if spec.template != "" {
			var err error
			if ns, err = tpl.namespace(spec.template); err != nil {
				return err
			}
		}
		ns.Name, ns.GenerateName = spec.name, ""
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("namespace %s: %v", spec.name, err)
		}
	}
	return nil
}

// createPods creates the groups' pods with workers parallel creators; names are the
// template's generateName with a running index. It returns how long creation took.
func createPods(ctx context.Context, client kubernetes.Interface, tpl templates, groups []podGroup, workers int, run string) (time.Duration, error) {
	type item struct {
		pod *corev1.Pod
	}
	var items []item
	for gi, g := range groups {
		template, err := tpl.pod(g.template)
		if err != nil {
			return 0, err
		}
		for i := 0; i < g.count; i++ {
			pod := template.DeepCopy()
			pod.Namespace = g.namespace
			pod.Name = fmt.Sprintf("%s%s-%d-%d", template.GenerateName, run, gi, i)
			pod.GenerateName = ""
			items = append(items, item{pod})
		}
	}
	start := time.Now()
	work := make(chan item)
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				for attempt := 0; ; attempt++ {
					_, err := client.CoreV1().Pods(it.pod.Namespace).Create(ctx, it.pod, metav1.CreateOptions{})
					if err == nil || apierrors.IsAlreadyExists(err) {
						break
					}
					if attempt >= 5 || ctx.Err() != nil {
						e := fmt.Errorf("creating %s/%s: %v", it.pod.Namespace, it.pod.Name, err)
						failed.CompareAndSwap(nil, &e)
						break
					}
					time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
				}
			}
		}()
	}
	for _, it := range items {
		if failed.Load() != nil {
			break
		}
		work <- it
	}
	close(work)
	wg.Wait()
	if e := failed.Load(); e != nil {
		return time.Since(start), *e
	}
	return time.Since(start), nil
}

// cleanUp deletes every pod of the namespaces at once (no kubelet: nothing waits for them)
// and then the namespaces, and waits until both are gone, so that the next configuration
// starts from the nodes alone.
func cleanUp(ctx context.Context, client kubernetes.Interface, namespaces []string, timeout time.Duration) error {
	zero := int64(0)
	for _, ns := range namespaces {
		err := client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting the pods of %s: %v", ns, err)
		}
	}
	for _, ns := range namespaces {
		err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting namespace %s: %v", ns, err)
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{Limit: 1})
		remaining := 0
		if err == nil {
			remaining = len(pods.Items)
			for _, ns := range namespaces {
				if _, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
					remaining++
				}
			}
		}
		if err == nil && remaining == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pods or namespaces %v still there after %s (last error %v)", namespaces, timeout, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func kubernetesClient(config *rest.Config) (kubernetes.Interface, error) {
	return kubernetes.NewForConfig(config)
}
