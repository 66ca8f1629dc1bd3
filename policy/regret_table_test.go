package policy

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRegretTableVariants: regret_adaptive's victims do not depend on
// where its records live: a table with or without a reserve, the block's
// slot free or held by another policy (the map path).
func TestRegretTableVariants(t *testing.T) {
	const capacity, ids, steps = 16, 48, 20000
	cfg := RegretAdaptiveConfig{Horizon: 8, Memory: 64, Protect: 0.5, TTL: 1.5, Uniform: 0.9, Guard: 4}
	run := func(reserve int, slotTaken bool) []BlockID {
		blocks := make([]Block, ids)
		for i := range blocks {
			blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
		}
		if slotTaken {
			other := NewRegretAdaptive(cfg, Env{})
			for i := range blocks {
				other.Access(&blocks[i], 0)
				other.Admit(&blocks[i], 0)
			}
		}
		p := newRegretAdaptive(cfg, Env{CapacityBlocks: capacity}, newRATable(reserve), 0)
		p.guard = newRAGuard(cfg, Env{CapacityBlocks: capacity}, p.tab)
		r := rand.New(rand.NewPCG(5, 6))
		var victims []BlockID
		for s := range steps {
			b := &blocks[r.IntN(ids)]
			if r.IntN(3) == 0 { // a loop of 24 blocks, larger than the cache
				b = &blocks[s%24]
			}
			if got := p.tab.get(b); got != nil && got.res[0] {
				p.Access(b, Time(s))
				continue
			}
			p.Access(b, Time(s))
			for p.Len() >= capacity {
				v, _ := p.Victim(Time(s))
				p.Evict(v, Time(s))
				victims = append(victims, v.ID)
			}
			p.Admit(b, Time(s))
		}
		for i := range blocks {
			p.Forget(&blocks[i])
		}
		if p.tab.n != 0 {
			t.Fatalf("reserve %d, slot taken %v: %d records in use after forgetting every block", reserve,
				slotTaken, p.tab.n)
		}
		return victims
	}
	want := run(0, false)
	if len(want) < steps/4 {
		t.Fatalf("only %d evictions in %d steps", len(want), steps)
	}
	for _, c := range []struct {
		reserve   int
		slotTaken bool
	}{{3 * capacity, false}, {0, true}, {3 * capacity, true}, {5000, false}} {
		if got := run(c.reserve, c.slotTaken); !slices.Equal(got, want) {
			t.Errorf("reserve %d, slot taken %v: victims differ from the table without reserve", c.reserve, c.slotTaken)
		}
	}
}
