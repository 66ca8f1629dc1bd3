package plan

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestRankTo: ranking the best k candidates puts exactly the first k of
// the full order first, in order, and ranking the rest afterwards gives
// the full order, whatever the input's order and ties, for sets small
// enough for the comparison sort and large enough for the radix ranking
// (radix.go), whose digits take bits of one word or of several.
func TestRankTo(t *testing.T) {
	key := map[string]func(i, n int, rng *rand.Rand) rankKey{
		"random": func(i, n int, rng *rand.Rand) rankKey {
			return rankKey{heat: float64(rng.IntN(50)), id: rng.Uint64(), class: uint16(rng.IntN(3))}
		},
		"equal heat": func(i, n int, rng *rand.Rand) rankKey { return rankKey{heat: 1, id: rng.Uint64()} },
		"ascending":  func(i, n int, _ *rand.Rand) rankKey { return rankKey{heat: float64(i), id: uint64(i)} },
		"descending": func(i, n int, _ *rand.Rand) rankKey { return rankKey{heat: float64(n - i), id: uint64(i)} },
		"pinned mix": func(i, n int, rng *rand.Rand) rankKey {
			return rankKey{heat: rng.Float64(), id: uint64(i), class: uint16(i%2) << 8}
		},
		"epoch": func(i, n int, rng *rand.Rand) rankKey { // as BenchmarkScaleEpoch ranks them
			return rankKey{heat: float64(2 + 2*rng.IntN(2)), id: uint64(rng.IntN(10 << 20)), class: uint16(rng.IntN(3))}
		},
		"high ID bits": func(i, n int, rng *rand.Rand) rankKey {
			return rankKey{heat: 3, id: rng.Uint64()<<40 | 12345, class: 1}
		},
		"zero heats": func(i, n int, rng *rand.Rand) rankKey { // 0 and -0 are one heat
			return rankKey{heat: math.Copysign(0, float64(rng.IntN(2))-0.5), id: uint64(n - i), class: uint16(i%2) << 8}
		},
		"priorities": func(i, n int, rng *rand.Rand) rankKey {
			return rankKey{heat: float64(rng.IntN(4)) / 3, id: 1<<50 + uint64(rng.IntN(n)),
				class: uint16(rng.IntN(2))<<8 | uint16(rng.IntN(256))}
		},
		"signed heats": func(i, n int, rng *rand.Rand) rankKey {
			return rankKey{heat: rng.NormFloat64(), id: uint64(i)}
		},
	}
	for name, mk := range key {
		for n, ks := range map[int][]int{500: {1, 2, 37, 64, 65, 250, 499, 500, 505}, 20_000: {1, 65, 10_000, 20_000}} {
			for _, k := range ks {
				rng := rand.New(rand.NewPCG(uint64(k), uint64(n)))
				r := &ranking{}
				for i := range n {
					k := mk(i, n, rng)
					k.i = uint32(i)
					r.keys = append(r.keys, k)
					r.found = append(r.found, cand{id: k.id})
				}
				r.ranked = make([]cand, 0, n)
				want := slices.Clone(r.keys)
				slices.SortStableFunc(want, compareRank)
				r.rankTo(k)
				if r.sorted < min(k, n) {
					t.Fatalf("%s, n=%d, k=%d: %d ranked", name, n, k, r.sorted)
				}
				if !equalRanks(r.keys[:r.sorted], want[:r.sorted]) {
					t.Errorf("%s, n=%d, k=%d: the best %d are not the first of the full order", name, n, k, r.sorted)
				}
				r.rankTo(n)
				if r.sorted != n || !equalRanks(r.keys, want) {
					t.Errorf("%s, n=%d, k=%d: ranking the rest does not give the full order", name, n, k)
				}
				for i := range n {
					if r.at(i).id != r.keys[i].id {
						t.Fatalf("%s, n=%d, k=%d: the candidate of rank %d is not its key's", name, n, k, i)
					}
				}
			}
		}
	}
}

// equalRanks reports whether a and b rank alike: keys that compare equal
// (IDs repeat only in tests) may come in either order.
func equalRanks(a, b []rankKey) bool {
	return slices.EqualFunc(a, b, func(x, y rankKey) bool { return compareRank(x, y) == 0 })
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

// TestRankPriorities: candidates rank by their priority, which a plan
// reads from the entry's bucket, and from the block only above the
// highest a bucket tells (PriorityHigh): of two blocks above it, the
// higher priority ranks first whatever the heat; an update changes it.
func TestRankPriorities(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 1 << 20, MoveBlocks: 1}})
	prio := func(p policy.Priority) func(*policy.Meta) { return func(m *policy.Meta) { m.Priority = p } }
	h.track(1, 1, 4096, false, prio(policy.PriorityHigh+1))
	h.track(2, 1, 4096, false, prio(policy.PriorityHigh+5))
	h.track(3, 1, 4096, false, prio(policy.PriorityHigh))
	h.access(1, 1, 1, 2, 3, 3, 3, 3)
	pl := h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{2})
	h.doneAll(pl)
	m := h.blocks[1].Meta
	m.Priority = policy.PriorityHigh + 9
	if err := h.p.Update(1, m, h.now); err != nil {
		t.Fatal(err)
	}
	h.access(1, 3, 3, 3)
	h.want(h.plan(), []policy.BlockID{}, []policy.BlockID{1})
	for _, p := range []policy.Priority{policy.PriorityLow, policy.PriorityNormal, policy.PriorityHigh, policy.PriorityHigh + 1, 255} {
		e := entry{b: &policy.Block{Meta: policy.Meta{Priority: p}}}
		e.bucket, e.meta = bucketOf(&e.b.Meta), metaOf(&e.b.Meta)
		if got := e.priority(); got != p {
			t.Errorf("priority %d read back as %d", p, got)
		}
	}
}

// TestRankScratchReuse: one ranking ranks sets of every size in turn (as
// a planner does from plan to plan), its radix scratch grown or reused,
// each in full rank order.
func TestRankScratchReuse(t *testing.T) {
	r := &ranking{}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{20_000, 300, 5_000, 40_000, 10, 70_000} {
		r.reset()
		for i := range n {
			k := rankKey{heat: float64(rng.IntN(5)), id: uint64(rng.IntN(1 << 30)), i: uint32(i), class: uint16(rng.IntN(3))}
			r.keys = append(r.keys, k)
			r.found = append(r.found, cand{id: k.id})
		}
		r.ranked = slices.Grow(r.ranked, n)
		want := slices.Clone(r.keys)
		slices.SortStableFunc(want, compareRank)
		r.rankTo(n)
		if !equalRanks(r.keys, want) {
			t.Fatalf("%d keys: not in rank order", n)
		}
		if n > radixMin && (len(r.scratch.keys) < n || len(r.scratch.counts) < 1<<radixWidth(n)) {
			t.Fatalf("%d keys ranked with scratch for %d keys and %d counts", n, len(r.scratch.keys), len(r.scratch.counts))
		}
	}
}

// TestMetaOf: an entry's meta byte keeps pinned, high priority and the
// class apart, a class past the cap reading as the cap (no class mask
// holds it), never as pinned or high priority.
func TestMetaOf(t *testing.T) {
	for _, tc := range []struct {
		meta         policy.Meta
		pinned, high bool
		class        uint8
	}{
		{meta: policy.Meta{Class: 2}, class: 2},
		{meta: policy.Meta{Class: 3, Pinned: true}, pinned: true, class: 3},
		{meta: policy.Meta{Class: 1, Priority: policy.PriorityHigh + 1}, high: true, class: 1},
		{meta: policy.Meta{Class: 63}, class: 63},
		{meta: policy.Meta{Class: 64}, class: metaHighPriority - 1},
		{meta: policy.Meta{Class: 200, Priority: policy.PriorityHigh}, class: metaHighPriority - 1},
		{meta: policy.Meta{Class: 255, Pinned: true, Priority: 255}, pinned: true, high: true, class: metaHighPriority - 1},
	} {
		e := entry{meta: metaOf(&tc.meta)}
		if e.pinned() != tc.pinned || (e.meta&metaHighPriority != 0) != tc.high || e.class() != tc.class {
			t.Errorf("%+v: pinned %v, high %v, class %d; want %v, %v, %d", tc.meta, e.pinned(),
				e.meta&metaHighPriority != 0, e.class(), tc.pinned, tc.high, tc.class)
		}
	}
}
