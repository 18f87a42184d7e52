package framework

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// ExtenderProbe reads what an extender pod serves on its metrics port (/readyz, /metrics),
// from the host, as kubelet and Prometheus reach it on the pod's address.
type ExtenderProbe struct {
	Pod  *corev1.Pod
	Port int // the chart's extender.metricsPort
	TLS  bool
}

func (p ExtenderProbe) get(ctx context.Context, path string) (int, string, error) {
	scheme := "http"
	if p.TLS {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(p.Pod.Status.PodIP, strconv.Itoa(p.Port)), path)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return get(ctx, client, url)
}

// get is url's status code and body, within 5 seconds.
func get(ctx context.Context, client *http.Client, url string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	response, err := client.Do(request)
	if err != nil {
		return 0, "", err
	}
	defer response.Body.Close()
	body, err := io.ReadAll(response.Body)
	return response.StatusCode, string(body), err
}

// Readyz is /readyz's status code and body.
func (p ExtenderProbe) Readyz(ctx context.Context) (int, string, error) { return p.get(ctx, "/readyz") }

// Metrics reads /metrics into series ("name{labels}") and their values.
func (p ExtenderProbe) Metrics(ctx context.Context) (map[string]float64, error) {
	return metricsAnswer(p.get(ctx, "/metrics"))
}

// metricsAnswer parses an answer of /metrics, which must be a 200.
func metricsAnswer(code int, body string, err error) (map[string]float64, error) {
	if err != nil {
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("/metrics answered %d: %s", code, body)
	}
	return ParseMetrics(body)
}

// ParseMetrics reads Prometheus' text format into series ("name{labels}") and their values.
func ParseMetrics(body string) (map[string]float64, error) {
	out := map[string]float64{}
	scanner := bufio.NewScanner(strings.NewReader(body))
	scanner.Buffer(make([]byte, 1<<20), 1<<20) // a histogram's line can be long
	for scanner.Scan() {
		line := scanner.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, scanner.Err()
}

// Sum adds the values of every series of the metric whose labels contain each of the
// name="value" pairs given.
func Sum(metrics map[string]float64, name string, labels ...string) float64 {
	total := 0.0
	for series, v := range metrics {
		if series != name && !strings.HasPrefix(series, name+"{") {
			continue
		}
		matches := true
		for _, l := range labels {
			matches = matches && strings.Contains(series, l)
		}
		if matches {
			total += v
		}
	}
	return total
}
