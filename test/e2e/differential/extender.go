package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"

	"scheduler-extender/test/e2e/framework"
)

// extender is the product as kube-scheduler meets it: a process serving a cluster-state file,
// asked over HTTP.
type extender struct {
	*framework.HostExtender
	client *http.Client
}

// startExtender writes the batch's cluster and configuration into dir and starts binary on
// them, returning once it is ready.
func startExtender(ctx context.Context, binary, dir string, b *Batch) (*extender, error) {
	state, config := filepath.Join(dir, "cluster-state.json"), filepath.Join(dir, "config.json")
	if err := writeJSON(state, clusterList(b)); err != nil {
		return nil, err
	}
	if err := writeJSON(config, extenderConfig(b.Config)); err != nil {
		return nil, err
	}
	e, err := framework.StartHostExtender(ctx, filepath.Join(dir, "extender.log"), binary,
		"--cluster-state", state, "--config", config, "--listen", "127.0.0.1:0", "--in-flight-wait", "0")
	if err != nil {
		return nil, err
	}
	return &extender{HostExtender: e, client: &http.Client{Timeout: 30 * time.Second}}, nil
}

// clusterList is the cluster-state file: the List `kubectl get nodes,pods,namespaces -A -o
// json` prints, holding each pod as the extender is to see it.
func clusterList(b *Batch) map[string]any {
	var items []any
	for i := range b.Nodes {
		items = append(items, &b.Nodes[i])
	}
	for i := range b.Namespaces {
		items = append(items, &b.Namespaces[i])
	}
	for i := range b.Pods {
		items = append(items, b.Pods[i].Sent())
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
}

// extenderConfig is the framework configuration that matches the oracle's profile, every
// node examined (no sampling: upstream's plugin tests filter every node too).
func extenderConfig(c Config) map[string]any {
	score := []map[string]any{{"name": "InterPodAffinity", "weight": c.AffinityWeight}}
	if c.PodStateWeight > 0 {
		score = append(score, map[string]any{"name": podStateName, "weight": c.PodStateWeight})
	}
	return map[string]any{
		"percentageOfNodesToScore": 100,
		"plugins": map[string]any{
			"filter": []map[string]any{{"name": "InterPodAffinity"}},
			"score":  score,
		},
		"pluginConfig": []map[string]any{{
			"name": "InterPodAffinity",
			"args": map[string]any{
				"hardPodAffinityWeight":              c.HardPodAffinityWeight,
				"ignorePreferredTermsOfExistingPods": c.IgnorePreferredTermsOfExistingPods,
			},
		}},
	}
}

// extenderArgs is ExtenderArgs for pod and the named nodes, by name (nodeCacheCapable) or in
// full.
func extenderArgs(b *Batch, pod *corev1.Pod, nodes []string) map[string]any {
	if !b.SendNodes {
		return map[string]any{"Pod": pod, "NodeNames": nodes}
	}
	byName := map[string]*corev1.Node{}
	for i := range b.Nodes {
		byName[b.Nodes[i].Name] = &b.Nodes[i]
	}
	items := make([]*corev1.Node, 0, len(nodes))
	for _, n := range nodes {
		items = append(items, byName[n])
	}
	return map[string]any{"Pod": pod, "Nodes": map[string]any{"items": items}}
}

// filterResult is ExtenderFilterResult.
type filterResult struct {
	Nodes *struct {
		Items []corev1.Node `json:"items"`
	} `json:"Nodes"`
	NodeNames                  *[]string         `json:"NodeNames"`
	FailedNodes                map[string]string `json:"FailedNodes"`
	FailedAndUnresolvableNodes map[string]string `json:"FailedAndUnresolvableNodes"`
	Error                      string            `json:"Error"`
}

type hostPriority struct {
	Host  string `json:"Host"`
	Score int64  `json:"Score"`
}

// explanation is /explain's answer, the fields compared.
type explanation struct {
	Nodes []struct {
		Name     string `json:"name"`
		Feasible bool   `json:"feasible"`
		Scores   []struct {
			Plugin     string `json:"plugin"`
			Raw        int64  `json:"raw"`
			Normalized int64  `json:"normalized"`
			Weight     int64  `json:"weight"`
		} `json:"scores"`
	} `json:"nodes"`
}

func (e *extender) post(ctx context.Context, verb string, body, answer any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Verbs+"/"+verb, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("/%s: %w; the extender's log is %s", verb, err, e.Log)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("/%s: reading the answer: %w", verb, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/%s: HTTP %d: %s", verb, resp.StatusCode, got)
	}
	if err := json.Unmarshal(got, answer); err != nil {
		return fmt.Errorf("/%s: decoding %q: %w", verb, got, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
