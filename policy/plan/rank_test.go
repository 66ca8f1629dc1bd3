package plan

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestRankTo: ranking the best k candidates puts exactly the first k of
// the full order first, in order, and ranking the rest afterwards gives
// the full order, whatever the input's order and ties.
func TestRankTo(t *testing.T) {
	const n = 500
	key := map[string]func(i int, rng *rand.Rand) rankKey{
		"random": func(i int, rng *rand.Rand) rankKey {
			return rankKey{heat: float64(rng.IntN(50)), id: rng.Uint64(), class: uint16(rng.IntN(3))}
		},
		"equal heat": func(i int, rng *rand.Rand) rankKey { return rankKey{heat: 1, id: rng.Uint64()} },
		"ascending":  func(i int, _ *rand.Rand) rankKey { return rankKey{heat: float64(i), id: uint64(i)} },
		"descending": func(i int, _ *rand.Rand) rankKey { return rankKey{heat: float64(n - i), id: uint64(i)} },
		"pinned mix": func(i int, rng *rand.Rand) rankKey {
			return rankKey{heat: rng.Float64(), id: uint64(i), class: uint16(i%2) << 8}
		},
	}
	for name, mk := range key {
		for _, k := range []int{1, 2, 37, n / 2, n - 1, n, n + 5} {
			rng := rand.New(rand.NewPCG(uint64(k), 1))
			r := &ranking{}
			for i := range n {
				r.keys = append(r.keys, mk(i, rng))
			}
			want := slices.Clone(r.keys)
			slices.SortFunc(want, compareRank)
			r.rankTo(k)
			if r.sorted < min(k, n) {
				t.Fatalf("%s, k=%d: %d ranked", name, k, r.sorted)
			}
			if !slices.Equal(r.keys[:r.sorted], want[:r.sorted]) {
				t.Errorf("%s, k=%d: the best %d are not the first of the full order", name, k, r.sorted)
			}
			r.rankTo(n)
			if r.sorted != n || !slices.Equal(r.keys, want) {
				t.Errorf("%s, k=%d: ranking the rest does not give the full order", name, k)
			}
		}
	}
}

// TestPlanReadsPastTheBudgetsBest: the budget bounds the promotions to
// two, but the two hottest candidates cannot be promoted (larger than
// their tenant's quota), so the plan ranks and reads the candidates past
// them and promotes the next two.
func TestPlanReadsPastTheBudgetsBest(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 1 << 20, MoveBlocks: 2,
		TenantBytes: map[uint32]int64{1: 4096}}})
	for id := policy.BlockID(1); id <= 2; id++ {
		h.track(id, 1, 8192, false)
	}
	for id := policy.BlockID(3); id <= 6; id++ {
		h.track(id, 2, 4096, false)
	}
	for range 3 {
		h.access(1, 2)
	}
	h.access(5, 6, 6, 3, 4, 4, 4)
	pl := h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{4, 6})
	if pl.Deferred != 4 {
		t.Errorf("deferred %d, want 4 (two too large, two past the budget)", pl.Deferred)
	}
}
