package plan

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// BenchmarkPlan100k measures one epoch with 100,000 tracked blocks of four
// tenants with quotas, half of them fast: 5,000 sampled accesses, a plan
// within a 1,000-block budget, and every move reported done.
func BenchmarkPlan100k(b *testing.B) {
	const n, size = 100_000, 4096
	p, err := New(Config{Policy: "lru", Budget: Budget{
		FastBytes:          n / 2 * size,
		DefaultTenantBytes: n / 8 * size,
		MoveBlocks:         1000,
	}})
	if err != nil {
		b.Fatal(err)
	}
	blocks := make([]policy.Block, n)
	for i := range blocks {
		blocks[i] = policy.Block{ID: uint64(i), Meta: policy.Meta{
			Size: size, Tenant: uint32(i % 4), RefCount: int32(1 + i%3), Priority: policy.Priority(i % 3)}}
		if err := p.Track(&blocks[i], i%2 == 0, 0); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	now := policy.Time(1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for range 5000 {
			now++
			if err := p.Access(uint64(rng.IntN(n)), 1, now); err != nil {
				b.Fatal(err)
			}
		}
		pl := p.Plan(now)
		for _, m := range pl.Demote {
			_ = p.Done(m.Block.ID, false, true, now)
		}
		for _, m := range pl.Promote {
			_ = p.Done(m.Block.ID, true, true, now)
		}
	}
}

// BenchmarkRankSort sorts 77,000 candidates' keys (what a 10M-block epoch
// with 1% sampled ranks) with sortKeys and, to compare, with
// slices.SortFunc and compareRank.
func BenchmarkRankSort(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	src := make([]rankKey, 77_000)
	for i := range src {
		src[i] = rankKey{heat: float64(rng.IntN(40)), id: rng.Uint64(), i: uint32(i), class: uint16(rng.IntN(3))}
	}
	keys := make([]rankKey, len(src))
	for _, bc := range []struct {
		name string
		sort func([]rankKey)
	}{
		{"sortKeys", func(k []rankKey) { sortKeys(k, 2*bits.Len(uint(len(k)))) }},
		{"slices.SortFunc", func(k []rankKey) { slices.SortFunc(k, compareRank) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				copy(keys, src)
				bc.sort(keys)
			}
		})
	}
}
