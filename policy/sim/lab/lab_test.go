package lab

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

func readTestFigures(t *testing.T) []Figure {
	t.Helper()
	f, err := os.Open("testdata/regret_ablation.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	figs, err := ReadFigures(f, Ablation())
	if err != nil {
		t.Fatal(err)
	}
	return figs
}

// TestReproducesLab runs the lab's regret ablation and checks it against
// the lab's published figures (testdata/regret_ablation.csv, transcribed
// from kv-hierarchy-lab's artifacts/regret_ablation/summary.csv): misses,
// evictions and bytes moved equal, mean latency within 1%. A sample of
// runs is also asserted field by field below.
func TestReproducesLab(t *testing.T) {
	rs, err := Ablation().Run()
	if err != nil {
		t.Fatal(err)
	}
	figs := readTestFigures(t)
	if len(rs) != 198 || len(figs) != 198 {
		t.Fatalf("%d runs and %d figures, want 198 each", len(rs), len(figs))
	}
	rep := Check(rs, figs)
	if rep.Matched != len(figs) {
		var b strings.Builder
		_ = rep.Write(&b)
		t.Errorf("%s", b.String())
	}
	for i := 0; i < len(figs); i += 7 { // a sample, asserted directly
		r, f := rs[i], figs[i]
		if r.Seed != f.Seed || r.Scenario != f.Scenario || r.Workload != f.Workload || r.Policy != f.Policy {
			t.Fatalf("run %d is %d/%s/%s/%s, figure %d/%s/%s/%s", i, r.Seed, r.Scenario, r.Workload, r.Policy,
				f.Seed, f.Scenario, f.Workload, f.Policy)
		}
		if r.Misses != f.Misses || r.BytesMoved != f.BytesMoved || relDiff(r.MeanLatencyMs, f.MeanLatencyMs) > 0.01 {
			t.Errorf("run %d %s %s %s seed %d: misses %d bytes %d latency %v, lab %d %d %v", i, r.Scenario,
				r.Workload, r.Policy, r.Seed, r.Misses, r.BytesMoved, r.MeanLatencyMs, f.Misses, f.BytesMoved, f.MeanLatencyMs)
		}
	}
}

// TestReadFiguresLabFormat reads the figures in the lab's own layout: no
// seed column, extra columns, rows in the ablation's order.
func TestReadFiguresLabFormat(t *testing.T) {
	raw, err := os.ReadFile("testdata/regret_ablation.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for i, row := range rows {
		extra := `{"tier0_gpu_fast": 1}`
		if i == 0 {
			extra = "tier_hit_rate"
		}
		_ = w.Write(append(append([]string{}, row[1:]...), extra))
	}
	w.Flush()
	figs, err := ReadFigures(&b, Ablation())
	if err != nil {
		t.Fatal(err)
	}
	want := readTestFigures(t)
	for i := range want {
		if figs[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", i, figs[i], want[i])
		}
	}
}

func TestReadFiguresErrors(t *testing.T) {
	head := "seed,scenario,workload,policy,accesses,miss_count,avg_latency_ms,bytes_moved\n"
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"missing column", "scenario,workload,policy\n"},
		{"no seed, wrong count", "scenario,workload,policy,accesses,miss_count,avg_latency_ms,bytes_moved\nm,w,p,1,1,1,1\n"},
		{"bad number", head + "7,m,w,p,x,1,1,1\n"},
		{"negative", head + "7,m,w,p,1,-1,1,1\n"},
		{"bad latency", head + "7,m,w,p,1,1,NaN,1\n"},
		{"short row", head + "7,m,w\n"},
		{"bad quoting", head + "7,\"m,w\n"},
	}
	for _, tc := range tests {
		if _, err := ReadFigures(strings.NewReader(tc.in), Ablation()); !errors.Is(err, ErrBadFigures) {
			t.Errorf("%s: error %v, want ErrBadFigures", tc.name, err)
		}
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in, name string
		err      bool
	}{
		{"lru", "lru", false},
		{"cost_aware", "cost_aware", false},
		{"regret_aware", "regret_aware_w6.0_h24", false},
		{"regret_aware:weight=12,horizon=8", "regret_aware_w12.0_h8", false},
		{"regret_aware:weight=0.5,decay=1,freq_weight=0,recency_weight=2", "regret_aware_w0.5_h24", false},
		{"regret_aware:horizon=0", "", true},
		{"regret_aware:weight=-1", "", true},
		{"regret_aware:weight=inf", "", true},
		{"regret_aware:size=1", "", true},
		{"lru:x=1", "", true},
		{"arc", "", true},
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.in)
		if (err != nil) != tc.err || (err != nil && !errors.Is(err, ErrBadSpec)) {
			t.Errorf("%s: error %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && sp.LabName() != tc.name {
			t.Errorf("%s: name %s, want %s", tc.in, sp.LabName(), tc.name)
		}
	}
}

// TestModel checks the lab's cost model on small traces over the kvlab
// tiers (tier 0 holds 128,000 bytes; tier 3 reads at 2.5 ms and 2,000
// B/ms): a cold miss goes through tier 3, a hit costs tier 0's read
// latency only.
func TestModel(t *testing.T) {
	h, _ := sim.NewHierarchy("kvlab", "base")
	tests := []struct {
		name     string
		sizes    []int64
		accesses []int
		misses   int64
		bytes    int64
		latency  float64 // total ms
	}{
		{"cold miss", []int64{4000}, []int{0}, 1, 4000, 2.5 + 0.02 + 4000.0/2000},
		{"then a hit", []int64{4000}, []int{0, 0}, 1, 4000, 2.5 + 0.02 + 2 + 0.02},
		{"eviction demotes", []int64{100_000, 100_000}, []int{0, 1}, 2, 300_000,
			2*(2.5+0.02+50) + (0.02 + 0.06 + 100_000.0/40_000)},
	}
	for _, tc := range tests {
		lt := trace.LabTrace{Name: tc.name, Sizes: tc.sizes, Accesses: tc.accesses}
		r, err := Run(Config{Hierarchy: h, Trace: lt, Spec: Spec{Name: PolicyLRU}})
		if err != nil {
			t.Fatal(err)
		}
		total := r.MeanLatencyMs * float64(r.Accesses)
		if r.Misses != tc.misses || r.BytesMoved != tc.bytes || relDiff(total, tc.latency) > 1e-12 {
			t.Errorf("%s: misses %d bytes %d latency %v, want %d %d %v", tc.name, r.Misses, r.BytesMoved, total,
				tc.misses, tc.bytes, tc.latency)
		}
	}
}

func TestTooBig(t *testing.T) {
	h, _ := sim.NewHierarchy("kvlab", "base")
	lt := trace.LabTrace{Name: "big", Sizes: []int64{10_000_000}, Accesses: []int{0}}
	if _, err := Run(Config{Hierarchy: h, Trace: lt, Spec: Spec{Name: PolicyLRU}}); !errors.Is(err, ErrTooBig) {
		t.Errorf("error %v, want ErrTooBig", err)
	}
}

// TestDecomposeStages checks the decomposition's two ends against what
// they claim to be: its lab stage is the lab ablation, and with every
// Model switch on, LRU (whose definition is the same in both) and kvtier's
// ARC run in the lab model measure what sim's own cache mode measures on
// the same traces (to 1e-9), so the switches model sim's cost model and
// lower tiers exactly and what is left between +lower and kvtier-policy
// is the policies' definitions.
func TestDecomposeStages(t *testing.T) {
	g := Ablation()
	g.Policies = []string{PolicyLRU, "kvtier:arc"}
	steps, err := Decompose(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(g.Scenarios)*len(g.Workloads)*len(g.Policies)*len(Stages) {
		t.Fatalf("%d steps", len(steps))
	}
	for i := 0; i < len(steps); i += len(Stages) {
		labStep, lower, simStep := steps[i], steps[i+3], steps[i+4]
		if lower.Stage != "+lower" || simStep.Stage != "kvtier-policy" {
			t.Fatalf("stages out of order: %+v", steps[i:i+len(Stages)])
		}
		if d := relDiff(lower.MeanLatencyMs, simStep.MeanLatencyMs); d > 1e-9 || lower.HitRatio != simStep.HitRatio {
			t.Errorf("%s %s: +lower %.4f ms %.3f, sim %.4f ms %.3f", lower.Scenario, lower.Workload,
				lower.MeanLatencyMs, lower.HitRatio, simStep.MeanLatencyMs, simStep.HitRatio)
		}
		if labStep.Policy != PolicyLRU {
			continue
		}
		want := 0.0
		for _, f := range readTestFigures(t) {
			if f.Scenario == labStep.Scenario && f.Workload == labStep.Workload && f.Policy == PolicyLRU {
				want += f.MeanLatencyMs / 3
			}
		}
		if relDiff(labStep.MeanLatencyMs, want) > 1e-9 {
			t.Errorf("%s %s: lab stage %.6f ms, lab figures %.6f", labStep.Scenario, labStep.Workload, labStep.MeanLatencyMs, want)
		}
	}
}

// TestKvtierLRUIsLabLRU: kvtier's lru, run in the lab model one instance
// per tier, measures what the lab's lru measures in every cell of the
// ablation, which checks the adapter's event mapping.
func TestKvtierLRUIsLabLRU(t *testing.T) {
	g := Ablation()
	g.Policies = []string{PolicyLRU, "kvtier:lru"}
	rs, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rs); i += 2 {
		a, b := rs[i], rs[i+1]
		if a.Misses != b.Misses || a.BytesMoved != b.BytesMoved || a.Evictions != b.Evictions ||
			relDiff(a.MeanLatencyMs, b.MeanLatencyMs) > 1e-9 {
			t.Errorf("seed %d %s %s: lab lru %d misses %d bytes %v ms, kvtier:lru %d %d %v", a.Seed, a.Scenario,
				a.Workload, a.Misses, a.BytesMoved, a.MeanLatencyMs, b.Misses, b.BytesMoved, b.MeanLatencyMs)
		}
	}
}

func TestGridFromSim(t *testing.T) {
	base := sim.Grid{Name: "g", Mode: "lab", Policies: []sim.Sweep{{Name: "lru"}, {Name: "kvtier:s3fifo"},
		{Name: "regret_aware", Params: map[string][]string{"weight": {"1", "12"}}}},
		Scenarios: []string{"medium"}, Workloads: []string{"long_tail_mix", "adversarial_prefetch:pages=32,steps=100"},
		Seeds: []int64{1, 2}}
	g, err := GridFromSim(base)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := g.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2*1*2*4 || rs[0].Accesses != 400 || rs[4].Accesses != 100 {
		t.Errorf("%d runs, first workloads %d and %d accesses", len(rs), rs[0].Accesses, rs[4].Accesses)
	}
	bad := []func(*sim.Grid){
		func(g *sim.Grid) { g.Mode = "cache" },
		func(g *sim.Grid) { g.Preset = "cxl" },
		func(g *sim.Grid) { g.Policies = []sim.Sweep{{Name: "kvtier:nope"}} },
		func(g *sim.Grid) { g.Workloads = []string{"long_context"} },
		func(g *sim.Grid) { g.Workloads = []string{"long_tail_mix:hot=3"} },
		func(g *sim.Grid) { g.Scenarios = []string{"huge"} },
		func(g *sim.Grid) { g.Seeds = []int64{-1} },
		func(g *sim.Grid) { g.Seeds = nil },
		func(g *sim.Grid) { g.Quants = []string{"fp4"} },
	}
	for i, f := range bad {
		sg := base
		f(&sg)
		if _, err := GridFromSim(sg); err == nil {
			t.Errorf("bad grid %d accepted", i)
		}
	}
}

func TestParseWorkload(t *testing.T) {
	tests := []struct {
		in   string
		want Workload
		err  bool
	}{
		{"periodic_reuse:pages=96,steps=640,period=11", Workload{"periodic_reuse", trace.LabParams{Pages: 96, Length: 640, Period: 11}}, false},
		{"adversarial_burst:burst=14", Workload{"adversarial_burst", trace.LabParams{Burst: 14}}, false},
		{"long_tail_mix", Workload{Name: "long_tail_mix"}, false},
		{"long_tail_mix:pages=0", Workload{}, true},
		{"long_tail_mix:pages", Workload{}, true},
		{"long_tail_mix:seed=3", Workload{}, true},
		{"nope", Workload{}, true},
	}
	for _, tc := range tests {
		w, err := ParseWorkload(tc.in)
		if (err != nil) != tc.err || w != tc.want {
			t.Errorf("%s: %+v, %v; want %+v, error %v", tc.in, w, err, tc.want, tc.err)
		}
		if err == nil && w.Spec() != tc.in && tc.in != "adversarial_burst:burst=14" {
			t.Errorf("%s: Spec() %s", tc.in, w.Spec())
		}
	}
}

// countingPolicy is a kvtier lru that counts the accesses it hears and
// asks for every access when all is set.
type countingPolicy struct {
	policy.Policy
	all      bool
	accesses int
}

func (p *countingPolicy) Access(b *policy.Block, now policy.Time) {
	p.accesses++
	p.Policy.Access(b, now)
}

func (p *countingPolicy) HearsAllAccesses() bool { return p.all }

// TestKvtierAllAccesses: every tier's instance is made with Env.PerTier;
// a lower tier's hears only the accesses to its pages, or every access
// when the policy asks for them (policy.AllAccesses), which changes
// nothing else: kvtier's lru measures the same either way.
func TestKvtierAllAccesses(t *testing.T) {
	h, err := sim.NewHierarchy("kvlab", "medium")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := trace.LabWorkload("adversarial_burst", trace.LabParams{Pages: 112, Length: 640, Burst: 14, Seed: 1,
		BytesPerScalar: 2})
	if err != nil {
		t.Fatal(err)
	}
	var results []Result
	for _, all := range []bool{false, true} {
		var pols []*countingPolicy
		c, err := newKvtierChooserWith(func(env policy.Env) (policy.Policy, error) {
			if !env.PerTier {
				t.Error("Env.PerTier not set")
			}
			p := &countingPolicy{Policy: policy.NewLRU(), all: all}
			pols = append(pols, p)
			return p, nil
		}, h, lt, 1)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, runChooser(t, h, lt, c))
		for i, p := range pols {
			full := p.accesses == len(lt.Accesses)
			if want := i == 0 || all; full != want {
				t.Errorf("all %v: tier %d heard %d of %d accesses", all, i, p.accesses, len(lt.Accesses))
			}
		}
	}
	if a, b := results[0], results[1]; a.Misses != b.Misses || a.BytesMoved != b.BytesMoved || a.latency != b.latency {
		t.Errorf("lru hearing every access measures %+v, else %+v", b, a)
	}
}

// runChooser replays lt through the lab model with pol.
func runChooser(t *testing.T, h sim.Hierarchy, lt trace.LabTrace, pol chooser) Result {
	t.Helper()
	e := newEngine(h, lt, sim.FP16, pol, Model{})
	for step, page := range lt.Accesses {
		e.step = step
		e.access(page)
		if e.err != nil {
			t.Fatal(e.err)
		}
	}
	return e.res
}
