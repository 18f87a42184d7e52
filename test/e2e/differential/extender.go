package differential

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// extender is the product as kube-scheduler meets it: a process serving a cluster-state file,
// asked over HTTP.
type extender struct {
	cmd    *exec.Cmd
	base   string
	client *http.Client
	log    *tail
	done   chan struct{}
}

var servingOn = regexp.MustCompile(`serving on (http://[^;\s]+)`)

// startExtender writes the batch's cluster and configuration into dir and starts binary on
// them, returning once it says it is ready.
func startExtender(ctx context.Context, binary, dir string, b *Batch) (*extender, error) {
	state, config := filepath.Join(dir, "cluster-state.json"), filepath.Join(dir, "config.json")
	if err := writeJSON(state, clusterList(b)); err != nil {
		return nil, err
	}
	if err := writeJSON(config, extenderConfig(b.Config)); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, binary, "--cluster-state", state, "--config", config,
		"--listen", "127.0.0.1:0", "--in-flight-wait", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	e := &extender{cmd: cmd, client: &http.Client{Timeout: 30 * time.Second}, log: &tail{}, done: make(chan struct{})}
	base, ready := make(chan string, 1), make(chan struct{})
	go func() {
		defer close(e.done)
		s := bufio.NewScanner(stderr)
		sawReady := false
		for s.Scan() {
			line := s.Text()
			e.log.add(line)
			if m := servingOn.FindStringSubmatch(line); m != nil {
				base <- m[1]
			}
			if !sawReady && strings.HasSuffix(line, "] ready") {
				sawReady = true
				close(ready)
			}
		}
	}()
	select {
	case e.base = <-base:
	case <-e.done:
	case <-time.After(30 * time.Second):
	}
	if e.base != "" {
		select {
		case <-ready:
			return e, nil
		case <-e.done:
		case <-time.After(30 * time.Second):
		}
	}
	e.stop()
	return nil, fmt.Errorf("the extender did not become ready; its log ends:\n%s", e.log)
}

func (e *extender) stop() {
	_ = e.cmd.Process.Kill()
	<-e.done
	_ = e.cmd.Wait()
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
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.base+"/"+verb, bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("/%s: %w; the extender's log ends:\n%s", verb, err, e.log)
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

// tail keeps the last lines of a log, for the message when something fails.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines = append(t.lines, line); len(t.lines) > 20 {
		t.lines = t.lines[1:]
	}
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
