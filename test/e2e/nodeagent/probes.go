package nodeagent

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// probe runs the container's probes from the host against the pod's address, as kubelet
// runs them from the node: the startup probe until it passes (restarting the container when
// it fails failureThreshold times), then readiness and liveness on their own periods.
func (c *container) probe(ctx context.Context) {
	if p := c.spec.StartupProbe; p != nil {
		if !c.repeat(ctx, p, func(ok bool, failures int32) bool {
			if ok {
				c.set(func() { c.started = true })
				return false
			}
			if failures >= threshold(p.FailureThreshold) {
				c.kill()
				return false
			}
			return true
		}) {
			return
		}
		if !c.isStarted() {
			return
		}
	}
	if p := c.spec.LivenessProbe; p != nil {
		go c.repeat(ctx, p, func(ok bool, failures int32) bool {
			if !ok && failures >= threshold(p.FailureThreshold) {
				c.kill()
				return false
			}
			return true
		})
	}
	if p := c.spec.ReadinessProbe; p != nil {
		c.repeat(ctx, p, func(ok bool, failures int32) bool {
			if ok {
				c.set(func() { c.ready = true })
			} else if failures >= threshold(p.FailureThreshold) {
				c.set(func() { c.ready = false })
			}
			return true
		})
		return
	}
	c.set(func() { c.ready = true })
}

// repeat runs the probe every period until ctx ends or then returns false; it returns
// whether it stopped because then asked it to (true only when ctx is still alive).
func (c *container) repeat(ctx context.Context, p *corev1.Probe, then func(ok bool, failures int32) bool) bool {
	if !sleep(ctx, time.Duration(p.InitialDelaySeconds)*time.Second) {
		return false
	}
	period := time.Duration(max(p.PeriodSeconds, 1)) * time.Second
	var failures int32
	for {
		err := c.check(ctx, p)
		if err == nil {
			failures = 0
		} else {
			failures++
			c.set(func() { c.probeFailure = err.Error() })
		}
		if !then(err == nil, failures) {
			return ctx.Err() == nil
		}
		if !sleep(ctx, period) {
			return false
		}
	}
}

func (c *container) check(ctx context.Context, p *corev1.Probe) error {
	timeout := time.Duration(max(p.TimeoutSeconds, 1)) * time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch {
	case p.HTTPGet != nil:
		port, err := c.port(p.HTTPGet.Port)
		if err != nil {
			return err
		}
		scheme := "http"
		if p.HTTPGet.Scheme == corev1.URISchemeHTTPS {
			scheme = "https"
		}
		url := fmt.Sprintf("%s://%s%s", scheme, net.JoinHostPort(c.podIP, strconv.Itoa(port)), p.HTTPGet.Path)
		request, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		// kubelet does not verify a probe's certificate.
		client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		response, err := client.Do(request)
		if err != nil {
			return err
		}
		response.Body.Close()
		if response.StatusCode < 200 || response.StatusCode >= 400 {
			return fmt.Errorf("%s answered %d", url, response.StatusCode)
		}
		return nil
	case p.TCPSocket != nil:
		port, err := c.port(p.TCPSocket.Port)
		if err != nil {
			return err
		}
		conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(c.podIP, strconv.Itoa(port)))
		if err != nil {
			return err
		}
		return conn.Close()
	}
	return fmt.Errorf("the node agent runs httpGet and tcpSocket probes only")
}

// port resolves a probe's port, a number or the name of one of the container's ports.
func (c *container) port(port intstr.IntOrString) (int, error) {
	if port.Type == intstr.Int {
		return port.IntValue(), nil
	}
	for _, p := range c.spec.Ports {
		if p.Name == port.StrVal {
			return int(p.ContainerPort), nil
		}
	}
	return 0, fmt.Errorf("container %s has no port named %q", c.spec.Name, port.StrVal)
}

func (c *container) set(change func()) {
	c.mu.Lock()
	change()
	c.mu.Unlock()
	c.changed()
}

func (c *container) isStarted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

func threshold(t int32) int32 { return max(t, 1) }

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
