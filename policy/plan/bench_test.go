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
// with 1% sampled ranks) with rankBest (the plans' radix ranking) and,
// to compare, with sortKeys (the comparison sort it ends with) and with
// slices.SortFunc and compareRank: keys of 40 heats and random 64-bit IDs
// (heats), and keys as BenchmarkScaleEpoch ranks them, of two heats and
// IDs below 10M (epoch).
func BenchmarkRankSort(b *testing.B) {
	for _, dist := range []string{"heats", "epoch"} {
		rng := rand.New(rand.NewPCG(1, 2))
		src := make([]rankKey, 77_000)
		for i := range src {
			src[i] = rankKey{heat: float64(rng.IntN(40)), id: rng.Uint64(), i: uint32(i), class: uint16(rng.IntN(3))}
			if dist == "epoch" {
				src[i].heat, src[i].id = float64(2+2*rng.IntN(2)), uint64(rng.IntN(10<<20))
			}
		}
		keys := make([]rankKey, len(src))
		var scratch radixScratch
		scratch.grow(len(src))
		for _, bc := range []struct {
			name string
			sort func([]rankKey)
		}{
			{"rankBest", func(k []rankKey) { rankBest(k, &scratch, len(k)) }},
			{"sortKeys", func(k []rankKey) { sortKeys(k, 2*bits.Len(uint(len(k)))) }},
			{"slices.SortFunc", func(k []rankKey) { slices.SortFunc(k, compareRank) }},
		} {
			b.Run(dist+"/"+bc.name, func(b *testing.B) {
				for b.Loop() {
					copy(keys, src)
					bc.sort(keys)
				}
			})
		}
	}
}
