package sim

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// benchPolicies are measured on every trace.
var benchPolicies = []string{"lru", "fifo", "sieve", "s3fifo", "arc", "lfu", "cost_aware", "regret_aware", "belady"}

func benchRun(b *testing.B, t *Trace, cfg Config) {
	b.Helper()
	if _, err := policy.Lookup(cfg.Policy); err != nil {
		b.Skipf("policy %s is not registered in this build", cfg.Policy)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(cfg, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(t.Accesses())*float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}

// BenchmarkMooncake replays the embedded Mooncake conversation trace in
// blocks mode with a 4,096-block fast tier.
func BenchmarkMooncake(b *testing.B) {
	t, err := Prepare(MooncakeSampleName, MooncakeSample(trace.MooncakeOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range benchPolicies {
		b.Run(p, func(b *testing.B) {
			benchRun(b, t, Config{Policy: p, Mode: ModeBlocks, CapacityBlocks: 4096})
		})
	}
}

// BenchmarkSynthetic10M replays 10M accesses of mixed_locality over
// 100,000 blocks in cache mode on the kvlab base hierarchy scaled to hold
// a tenth of them in tier 0.
func BenchmarkSynthetic10M(b *testing.B) {
	spec := "mixed_locality:pages=100000,steps=10000000,seed=1"
	t, err := Prepare(spec, func() (trace.Reader, error) { return trace.NewWorkloadSpec(spec) })
	if err != nil {
		b.Skipf("workload: %v", err)
	}
	h, _ := NewHierarchy("kvlab", "base")
	for i := range h.Tiers {
		h.Tiers[i].Capacity *= 32
	}
	for _, p := range benchPolicies {
		b.Run(p, func(b *testing.B) { benchRun(b, t, Config{Policy: p, Hierarchy: h}) })
	}
}

// BenchmarkRegretGrid runs the whole regret ablation grid on one worker:
// ns/op is its CPU time.
func BenchmarkRegretGrid(b *testing.B) {
	g, err := GridPreset("regret")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if _, err := RunGrid(g, 1); err != nil {
			b.Fatal(err)
		}
	}
}
