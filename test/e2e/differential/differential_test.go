// Package differential asks kube-scheduler's own InterPodAffinity plugin, at the release
// test/e2e/go.mod pins and run by that release's framework, and the extender the same
// questions about seeded random clusters, and fails on any difference: a node's Filter
// verdict, its reason and code, a plugin's raw or weighted score, or the 0-10 score
// /prioritize answers.
//
//	scripts/differential.sh                              # the CI run: 10,000 cases
//	scripts/differential.sh -run TestDifferential -args -cases 1000000 -seed 7
//
// A case that disagrees is saved under testdata/cases (a JSON Batch holding its cluster,
// configuration and pod), where TestReplay asks it again on every run.
package differential

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

var (
	cases      = flag.Int("cases", 10000, "how many pods to ask about")
	seed       = flag.Uint64("seed", 1, "the run's seed; batch i of a run is drawn from seed·2³² + i")
	perCluster = flag.Int("per-cluster", 40, "pods asked about each random cluster")
	saveDir    = flag.String("save", "testdata/cases", "where a disagreeing case is saved")
)

func TestMain(m *testing.M) {
	// The scheduler's cache and queue report to kube-scheduler's metrics, which must exist.
	metrics.Register()
	// The framework logs each profile it builds, one per batch; the answers are what counts.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	flag.Parse()
	os.Exit(m.Run())
}

func binary(t *testing.T) string {
	b := os.Getenv("SX_BINARY")
	if b == "" {
		t.Fatal("SX_BINARY names the extender binary to test (scripts/differential.sh sets it)")
	}
	return b
}

func TestDifferential(t *testing.T) {
	ctx := context.Background()
	bin, tl := binary(t), newTally()
	for i := 0; tl.Cases < *cases; i++ {
		n := min(*perCluster, *cases-tl.Cases)
		b := generate(*seed<<32|uint64(i), n)
		runBatch(ctx, t, bin, &b, tl, true)
	}
	t.Logf("seed %d: %s", *seed, tl)
	if tl.Mismatches > 0 {
		t.Fatalf("%d of %d cases differ from upstream; each is saved under %s", tl.Mismatches, tl.Cases, *saveDir)
	}
	if tl.Cases >= 1000 {
		assertNotVacuous(t, tl)
	}
}

// assertNotVacuous fails a run whose cases could not have disagreed much: every reason and
// code the plugin gives must have come up, and a good share of the cases must have refused
// some nodes and scored the rest unequally.
func assertNotVacuous(t *testing.T, tl *tally) {
	for _, v := range []string{
		"Unschedulable: node(s) didn't match pod anti-affinity rules",
		"Unschedulable: node(s) didn't satisfy existing pods anti-affinity rules",
		"UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules",
	} {
		if tl.Verdicts[v]*100 < tl.Nodes {
			t.Errorf("fewer than 1%% of the node verdicts are %q (%d of %d)", v, tl.Verdicts[v], tl.Nodes)
		}
	}
	for name, n := range map[string]int{
		"refuse some nodes but not all":              tl.CasesRefusing,
		"score the feasible nodes unequally":         tl.CasesSpread,
		"have a nominated pod that counts in Filter": tl.CasesNominated,
	} {
		if n*10 < tl.Cases {
			t.Errorf("fewer than 10%% of the cases %s (%d of %d)", name, n, tl.Cases)
		}
	}
}

// TestReplay asks again every case a run saved.
func TestReplay(t *testing.T) {
	files, _ := filepath.Glob("testdata/cases/*.json")
	if len(files) == 0 {
		t.Skip("no saved cases")
	}
	bin := binary(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var b Batch
			if err := json.Unmarshal(data, &b); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			tl := newTally()
			runBatch(context.Background(), t, bin, &b, tl, false)
			if tl.Mismatches > 0 {
				t.Fatalf("%s still differs from upstream", f)
			}
		})
	}
}

// runBatch starts the extender and upstream's framework on one cluster and compares them on
// each incoming pod; with save, a disagreeing pod is written out as a batch of its own.
func runBatch(ctx context.Context, t *testing.T, bin string, b *Batch, tl *tally, save bool) {
	t.Helper()
	o, err := newOracle(ctx, b)
	if err != nil {
		t.Fatalf("batch %d: %v", b.Seed, err)
	}
	defer o.close()
	e, err := startExtender(ctx, bin, t.TempDir(), b)
	if err != nil {
		t.Fatalf("batch %d: %v", b.Seed, err)
	}
	defer e.Stop()
	for i := range b.Incoming {
		p := &b.Incoming[i]
		diffs, err := compareCase(ctx, o, e, b, p, tl)
		if err != nil {
			t.Fatalf("batch %d, pod %s: %v", b.Seed, p.Stored.Name, err)
		}
		if len(diffs) == 0 {
			continue
		}
		tl.Mismatches++
		where := ""
		if save {
			where = saveCase(t, b, i)
		}
		t.Errorf("batch %d, pod %s/%s%s:\n  %s", b.Seed, p.Stored.Namespace, p.Stored.Name, where, strings.Join(diffs, "\n  "))
	}
}

func saveCase(t *testing.T, b *Batch, i int) string {
	one := *b
	one.Incoming = []Pod{b.Incoming[i]}
	if err := os.MkdirAll(*saveDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(*saveDir, fmt.Sprintf("%d-%s.json", b.Seed, b.Incoming[i].Stored.Name))
	if err := writeJSON(path, &one); err != nil {
		t.Fatal(err)
	}
	return " (saved as " + path + ")"
}
