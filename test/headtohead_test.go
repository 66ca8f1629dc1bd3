//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/test/headtohead/bench"
	"github.com/kvtier/kvtier/test/headtohead/report"
)

// enforceIssueTargets switches on assertIssueTargets: issue 11's targets
// for kvtier, measured by every run of TestHeadToHeadShort but only logged
// while it is false.
const enforceIssueTargets = false

// TestHeadToHeadShort is the short version of the head-to-head benchmark
// (`make bench-tiering` runs the full one): first touch, DAMOS and kvtier
// with sampler "auto", one guest each, with short phases. It asserts only
// what must hold whatever the tuning: every block's checksum matches in
// every configuration, and each produced a time series and its per-phase
// figures. The report goes to test/.cache/headtohead-short.
func TestHeadToHeadShort(t *testing.T) {
	k, err := env.kernels.Get("6.12")
	if err != nil {
		t.Skip(err)
	}
	cfgs, err := bench.Lookup([]string{"first-touch", "damos", "kvtier-auto"})
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	root := filepath.Dir(wd)
	out := filepath.Join(env.cacheDir, "headtohead-short")
	res, err := bench.Run(context.Background(), bench.Options{Root: root, Configs: cfgs, Phases: bench.Short(),
		Kernel: k, Topology: "cxl-hmat-384", TraceLines: 200, Prebuilt: env.bin, LogDir: filepath.Join(out, "logs"),
		Trace: bench.DefaultTrace(root), Log: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if err := report.WriteAll(out, res); err != nil {
		t.Error(err)
	}
	for i := range res.Runs {
		checkRun(t, &res.Runs[i])
	}
	for _, tg := range res.Targets {
		t.Logf("target (not asserted): %s: met %v: %s", tg.Name, tg.Met, tg.Measured)
	}
	if enforceIssueTargets {
		assertIssueTargets(t, res.Targets)
	}
}

// checkRun asserts what must hold in every configuration.
func checkRun(t *testing.T, r *report.Run) {
	t.Helper()
	w := r.Workload
	if w == nil {
		t.Errorf("%s: no workload report: %s", r.Config, strings.Join(r.Errors, "; "))
		return
	}
	if !w.ChecksumsOK() {
		t.Errorf("%s: checksums: %d of %d blocks verified, mismatching blocks %v, %d mismatching reads",
			r.Config, w.Verified, w.Blocks, w.Mismatches, w.LiveMismatches)
	}
	samples := map[string]int{}
	for _, p := range w.Series {
		samples[p.Phase]++
	}
	for _, ph := range []string{"A1", "B", "A2", "R-warm", "R-gap1", "trace"} {
		if samples[ph] == 0 {
			t.Errorf("%s: no samples of phase %s in the time series (%d samples in all)", r.Config, ph, len(w.Series))
		}
	}
	if len(w.Phases) != 3 || r.Phase("B") == nil {
		t.Errorf("%s: per-phase figures of %d phases, want A1, B, A2", r.Config, len(w.Phases))
	}
	if w.Regret == nil || len(w.Regret.Cycles) == 0 {
		t.Errorf("%s: no regret figures", r.Config)
	}
	if w.Replay == nil || w.Replay.Reads == 0 {
		t.Errorf("%s: no trace replay reads", r.Config)
	}
	if len(r.Errors) > 0 {
		t.Logf("%s: %s", r.Config, strings.Join(r.Errors, "; "))
	}
}

// assertIssueTargets fails the test for every issue 11 target not met
// (kvtier-auto's hot share >= 0.95 and at or above TPP's and DAMOS's, its
// seconds to 80% and pages, regret, CPU; those whose configurations this
// short run does not boot are reported as not measured).
func assertIssueTargets(t *testing.T, ts []report.Target) {
	t.Helper()
	for _, tg := range ts {
		if !tg.Met {
			t.Errorf("issue 11 target not met: %s: %s", tg.Name, tg.Measured)
		}
	}
}

// testWriter sends the benchmark's progress lines to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
