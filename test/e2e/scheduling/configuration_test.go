package scheduling

import "fmt"

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

func (c configuration) values() map[string]any {
	bindVerb := ""
	if c.bind {
		bindVerb = "bind"
	}
	return map[string]any{
		"registration": map[string]any{
			"nodeCacheCapable":          c.nodeCacheCapable,
			"bindVerb":                  bindVerb,
			"exclusiveInterPodAffinity": c.exclusive,
		},
		"extender": map[string]any{"verbosity": 2},
	}
}
