// Package scheduling runs workloads through the real kube-scheduler calling the extender as
// the chart installs it, in each of the chart's configurations, and judges the placements
// from the API server's final state (test/e2e/checker) and its audit log.
package scheduling

import (
	"os"
	"testing"

	"scheduler-extender/test/e2e/framework"
)

var env *framework.Environment

// Eight nodes over two zones: enough for a zone to hold a group, and for anti-affinity per
// node to run out of nodes.
var shape = framework.Shape{Nodes: 8, Zones: 2}

func TestMain(m *testing.M) {
	os.Exit(framework.RunSuite(m, shape, &env))
}
