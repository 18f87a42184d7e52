package framework

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// HostExtender is the extender binary run as a process of this machine, outside any pod.
type HostExtender struct {
	*Process
	Verbs   string // base URL of the scheduling verbs
	Metrics string // base URL of /readyz and /metrics: Verbs unless --metrics-listen is set
}

// The start-up line naming the listeners: one, or the verbs' and the metrics' one.
var servingOn = regexp.MustCompile(`serving on (http://[0-9.:]+)(?: for the scheduling verbs and (http://[0-9.:]+))?`)

// StartHostExtender starts binary with args, its output in log, and returns once /readyz
// answers 200. A process that exits or is not ready within a minute is an error quoting the
// end of its log.
func StartHostExtender(ctx context.Context, log, binary string, args ...string) (*HostExtender, error) {
	p, err := StartProcess(log, binary, args...)
	if err != nil {
		return nil, err
	}
	e := &HostExtender{Process: p}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s exited before it was ready; its log ends:\n%s", binary, logTail(log))
		case <-ctx.Done():
			p.Stop()
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if e.Verbs == "" {
			data, _ := os.ReadFile(log)
			m := servingOn.FindSubmatch(data)
			if m == nil {
				continue
			}
			e.Verbs, e.Metrics = string(m[1]), string(m[2])
			if e.Metrics == "" {
				e.Metrics = e.Verbs
			}
		}
		if response, err := client.Get(e.Metrics + "/readyz"); err == nil {
			response.Body.Close()
			if response.StatusCode == http.StatusOK {
				return e, nil
			}
		}
	}
	p.Stop()
	return nil, fmt.Errorf("%s not ready within a minute; its log ends:\n%s", binary, logTail(log))
}

// ScrapeMetrics reads the extender's /metrics into series ("name{labels}") and their values.
func (e *HostExtender) ScrapeMetrics(ctx context.Context) (map[string]float64, error) {
	return metricsAnswer(get(ctx, http.DefaultClient, e.Metrics+"/metrics"))
}

// logTail is the last lines of a log, for an error message.
func logTail(log string) string {
	data, err := os.ReadFile(log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
