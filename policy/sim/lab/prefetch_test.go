package lab

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// handHierarchy is two tiers for hand-computed runs: tier 0 holds one
// 100-byte page (or pages0 of them), tier 1 all; a move between them
// costs 1 + 10 + 100/100 = 12 ms either way, a tier-0 hit 1 ms.
func handHierarchy(pages0 int64) sim.Hierarchy {
	return sim.Hierarchy{Preset: "hand", Scenario: "hand", Tiers: []sim.Tier{
		{Name: "t0", Capacity: 100 * pages0, ReadMs: 1, WriteMs: 1, Bandwidth: 100},
		{Name: "t1", Capacity: 10_000, ReadMs: 10, WriteMs: 10, Bandwidth: 100},
	}}
}

// handTrace reads pages 0..n-1 in turn, reps times, each page 100 bytes.
func handTrace(n, reps int) trace.LabTrace {
	lt := trace.LabTrace{Name: "hand", Sizes: make([]int64, n)}
	for i := range lt.Sizes {
		lt.Sizes[i] = 100
	}
	for range reps {
		for p := range n {
			lt.Accesses = append(lt.Accesses, p)
		}
	}
	return lt
}

// TestPrefetchByHand replays A B C A B C A B C with a one-page tier 0.
// predictive learns A->B, B->C, C->A; a transition is proposed once seen
// twice, so from step 6 on (A, whose A->B was seen at steps 1 and 4) it
// prefetches the next page: B at step 6, C at 7, A at 8. Steps 7 and 8
// hit their prefetched page (useful 2); A, prefetched at the last step,
// is never read (wasted 1). Every prefetch evicts the page in tier 0
// (demoted: 12 ms, 100 demand bytes) and moves its page up (12 ms, 100
// prefetch bytes). Without prefetch (depth 0, or lru, which proposes
// nothing) all nine accesses miss: one cold (12 ms) and eight
// evict-and-promote (24 ms). With min_confidence 1 a transition seen once
// is proposed: prefetching starts at step 3 and steps 4 to 8 all hit.
func TestPrefetchByHand(t *testing.T) {
	tests := []struct {
		spec                            string
		depth                           int
		misses, evictions               int64
		bytes, prefetchBytes            int64
		requests, useful, wasted        int64
		latencyMs, hitRatio, usefulness float64
	}{
		{"predictive", 0, 9, 8, 1700, 0, 0, 0, 0, 12 + 8*24, 0, 0},
		{"predictive", 1, 7, 9, 1900, 300, 3, 2, 1, 12 + 6*24 + 24 + 2*(1+24), 2.0 / 9, 2.0 / 3},
		{"predictive", 2, 7, 9, 1900, 300, 3, 2, 1, 12 + 6*24 + 24 + 2*(1+24), 2.0 / 9, 2.0 / 3},
		{"predictive:max_prefetches=0", 2, 9, 8, 1700, 0, 0, 0, 0, 12 + 8*24, 0, 0},
		{"predictive:min_confidence=1", 1, 4, 9, 1900, 600, 6, 5, 1, 12 + 3*24 + 6*24 + 5, 5.0 / 9, 5.0 / 6},
		{"lru", 2, 9, 8, 1700, 0, 0, 0, 0, 12 + 8*24, 0, 0},
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(Config{Hierarchy: handHierarchy(1), Trace: handTrace(3, 3), Spec: sp, Prefetch: tc.depth})
		if err != nil {
			t.Fatal(err)
		}
		got := []int64{r.Misses, r.Evictions, r.BytesMoved, r.PrefetchBytes, r.DemandBytes,
			r.PrefetchRequests, r.PrefetchUseful, r.PrefetchWasted}
		want := []int64{tc.misses, tc.evictions, tc.bytes, tc.prefetchBytes, tc.bytes - tc.prefetchBytes,
			tc.requests, tc.useful, tc.wasted}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s depth %d: misses, evictions, bytes, prefetch bytes, demand bytes, requests, useful, wasted "+
					"= %v, want %v", tc.spec, tc.depth, got, want)
				break
			}
		}
		if math.Abs(r.MeanLatencyMs-tc.latencyMs/9) > 1e-12 || r.HitRatio != tc.hitRatio || r.PrefetchUsefulness != tc.usefulness {
			t.Errorf("%s depth %d: latency %v hit ratio %v usefulness %v, want %v %v %v", tc.spec, tc.depth,
				r.MeanLatencyMs, r.HitRatio, r.PrefetchUsefulness, tc.latencyMs/9, tc.hitRatio, tc.usefulness)
		}
	}
}

// TestPrefetchOffIsUnchanged: a prefetch depth changes nothing for a
// policy that proposes no pages: the regret ablation at depth 2 gives
// exactly the runs at depth 0.
func TestPrefetchOffIsUnchanged(t *testing.T) {
	g := Ablation()
	off, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	g.Prefetch = 2
	on, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i := range off {
		a, b := off[i], on[i]
		b.Prefetch = 0
		if a.Misses != b.Misses || a.BytesMoved != b.BytesMoved || a.MeanLatencyMs != b.MeanLatencyMs ||
			a.PrefetchRequests != 0 || b.PrefetchRequests != 0 || a.DemandBytes != a.BytesMoved {
			t.Fatalf("run %d %s %s: off %+v, on %+v", i, a.Workload, a.Policy, a, b)
		}
	}
}

// TestReproducesDefaultSweep runs the lab's default sweep, three of whose
// five scenarios prefetch, and checks every run against the lab's
// artifacts/default_sweep/results.csv (testdata/default_sweep.csv),
// prefetch requests, useful and wasted prefetches and prefetch bytes
// included.
func TestReproducesDefaultSweep(t *testing.T) {
	rs, err := DefaultSweep().Run()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/default_sweep.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	figs, err := ReadFigures(f, Grid{})
	if err != nil {
		t.Fatal(err)
	}
	rep := Check(rs, figs)
	if len(rs) != 210 || rep.Figures != 210 || rep.Matched != 210 || rep.Exact != 210 {
		var b strings.Builder
		_ = rep.Write(&b)
		t.Fatalf("%d runs: %s", len(rs), b.String())
	}
	var useful, requests int64
	for _, fg := range figs {
		if fg.PrefetchRequests < 0 || fg.PrefetchUseful < 0 {
			t.Fatalf("figure without prefetch columns: %+v", fg)
		}
		useful += fg.PrefetchUseful
		requests += fg.PrefetchRequests
	}
	if requests == 0 || useful == 0 {
		t.Fatalf("the sweep's figures have %d prefetch requests, %d useful: nothing checked", requests, useful)
	}
}

// TestWriteResultsRoundTrip: the per-run CSV reads back as figures that
// every run matches exactly.
func TestWriteResultsRoundTrip(t *testing.T) {
	sw := DefaultSweep()
	sw.Scenarios = sw.Scenarios[:1]
	rs, err := sw.Run()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteResults(&b, rs); err != nil {
		t.Fatal(err)
	}
	figs, err := ReadFigures(&b, Grid{})
	if err != nil {
		t.Fatal(err)
	}
	if rep := Check(rs, figs); rep.Exact != len(rs) || len(rs) != 42 {
		t.Errorf("%d runs, %d exact matches", len(rs), rep.Exact)
	}
}

func TestPrefetchSpecs(t *testing.T) {
	tests := []struct {
		spec, name string
		err        error
	}{
		{"predictive", "predictive", nil},
		{"predictive:max_prefetches=1", "predictive_m1_c2", nil},
		{"predictive:min_confidence=3,max_prefetches=4", "predictive_m4_c3", nil},
		{"heavy_hitter", "heavy_hitter", nil},
		{"windowed_recency", "windowed_recency", nil},
		{"belady", "belady", nil},
		{"predictive:depth=1", "", ErrBadSpec},
		{"predictive:max_prefetches=-1", "", ErrBadSpec},
		{"belady:x=1", "", ErrBadSpec},
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.spec)
		if !errors.Is(err, tc.err) || (err == nil && sp.LabName() != tc.name) {
			t.Errorf("%s: %q, %v; want %q, %v", tc.spec, sp.LabName(), err, tc.name, tc.err)
		}
	}
	if _, err := Run(Config{Hierarchy: handHierarchy(1), Trace: handTrace(3, 1), Spec: Spec{Name: PolicyLRU},
		Prefetch: -1}); !errors.Is(err, ErrBadSpec) {
		t.Errorf("prefetch -1: %v, want ErrBadSpec", err)
	}
	g := Ablation()
	g.Prefetch = -1
	if err := g.Validate(); !errors.Is(err, sim.ErrBadConfig) {
		t.Errorf("grid prefetch -1: %v, want ErrBadConfig", err)
	}
}
