package policy

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDensityTable: two reuses at distance 4 and two blocks never read
// again (the last bin), span 4: at age a the hits are the reuses in
// (a, a+4], the lifetime their distances from a plus 4 for every block
// read later or never.
func TestDensityTable(t *testing.T) {
	h := []float64{0, 0, 0, 0, 2, 0, 0, 0, 2}
	tests := []struct {
		age  int
		want float64
	}{
		{0, 2.0 / (2*4 + 4*2)},
		{1, 2.0 / (2*3 + 4*2)},
		{3, 2.0 / (2*1 + 4*2)},
		{4, 0},
		{7, 0},
	}
	dens := make([]float64, len(h))
	densityTable(h, dens, make([]float64, len(h)+1), make([]float64, len(h)+1), 4)
	for _, tt := range tests {
		if math.Abs(dens[tt.age]-tt.want) > 1e-9 {
			t.Errorf("age %d: density %v, want %v", tt.age, dens[tt.age], tt.want)
		}
	}
}

// TestRegretTieredDensityKeepsReusedBlocks: blocks 0, 1 and 2 are read
// every 12 accesses between scans of 9 new blocks, in a cache of 10 that
// LRU never keeps them in; with span 2 the density ranking sees their
// reuse within its horizon, leads the duel and keeps them, run alone or
// per tier.
func TestRegretTieredDensityKeepsReusedBlocks(t *testing.T) {
	for _, env := range []Env{{CapacityBlocks: 10}, {CapacityBlocks: 10, PerTier: true}} {
		rt := mustNew(t, "regret_tiered:span=2,protect=0", env).(*RegretTiered)
		misses := hotMisses(newUnitDriver(t, rt, 10))
		if misses > 0 || !rt.FollowsClass() {
			t.Errorf("per tier %v: %d misses on the reused blocks in the last 10 rounds, follows the "+
				"ranking %v: want 0 and true", env.PerTier, misses, rt.FollowsClass())
		}
	}
}

// TestRegretTieredDensitySparesTheReadBlock: in a lower tier, the block
// just read (about to be promoted) is not the density ranking's victim
// while another block is resident, though its age, 0, has the lowest
// density (nothing is read again within a step of its read).
func TestRegretTieredDensitySparesTheReadBlock(t *testing.T) {
	rt := mustNew(t, "regret_tiered", Env{CapacityBlocks: 2, PerTier: true}).(*RegretTiered)
	blocks := []*Block{{ID: 1, Meta: Meta{Size: 1}}, {ID: 2, Meta: Meta{Size: 1}}, {ID: 3, Meta: Meta{Size: 1}}}
	now := Time(0)
	for range 40 { // reuse distance 3 for every block, so age 0 and 1 have density 0... and 2 the most
		for _, b := range blocks {
			now++
			rt.Access(b, now)
		}
	}
	rt.Admit(blocks[0], now)
	rt.Admit(blocks[1], now)
	now++
	rt.Access(blocks[1], now) // block 2: age 0; block 1: age 2, read again next
	if v := rt.densityVictim(&rt.real); v == nil || rt.tab.block(v.idx) != blocks[0] {
		t.Fatalf("victim %v, want block 1 (block 2 was just read)", v)
	}
	rt.Evict(blocks[1], now)
	if v := rt.densityVictim(&rt.real); v == nil || rt.tab.block(v.idx) != blocks[0] {
		t.Fatalf("victim %v, want block 1, the only one", v)
	}
}

// TestRegretTieredDensityTracksAges: after random reads, admissions,
// evictions and forgets, the blocks the density model counts by the step
// of their last read are exactly the tracked records that were read, each
// at its age (beyond the window: in the last bin).
func TestRegretTieredDensityTracksAges(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		blocks int
	}{
		{"short window", "regret_tiered:memory=16,reuse=8", 64},
		{"default window", "regret_tiered", 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, tt.spec, Env{CapacityBlocks: 10}).(*RegretTiered)
			d := newUnitDriver(t, rt, 10)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range 5000 {
				id := BlockID(r.IntN(tt.blocks))
				if i%97 == 0 {
					d.s.Forget(d.block(id))
					continue
				}
				d.access(id)
			}
			want := [2][]float64{make([]float64, len(rt.dens.live[0])), make([]float64, len(rt.dens.live[1]))}
			for _, b := range rt.tab.ra.blocks {
				if b == nil {
					continue
				}
				if rec := rt.tab.get(b); rec != nil && rec.last >= 0 {
					w := want[rtClassIndex(rt.densityHot(rec))]
					w[min(rt.clock-rec.last, int64(len(w)-1))]++
				}
			}
			rt.dens.pending = math.MaxInt32 // due now
			rt.dens.refresh(10, rt.clock)
			for c := range want {
				for age, n := range want[c] {
					if rt.dens.live[c][age] != n {
						t.Fatalf("class %d age %d: %v tracked, want %v", c, age, rt.dens.live[c][age], n)
					}
				}
			}
		})
	}
}

// TestRegretTieredLowerTierStartsInDensity: a tier fed by demotions (a
// block admitted without its read just before) follows the density
// ranking from its first demotion, until LRU leads its duel; a fast tier,
// or a lower tier ranking by class, starts with the inner policy.
func TestRegretTieredLowerTierStartsInDensity(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		demote   bool
		wantRank bool
	}{
		{"lower tier, density", "regret_tiered", true, true},
		{"lower tier, class", "regret_tiered:rank=class", true, false},
		{"fast tier, density", "regret_tiered", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, tt.spec, Env{CapacityBlocks: 4, PerTier: true}).(*RegretTiered)
			for i := range 3 {
				b := &Block{ID: BlockID(i), Meta: Meta{Size: 1}}
				if !tt.demote {
					rt.Access(b, Time(i))
				}
				rt.Admit(b, Time(i))
			}
			if rt.FollowsClass() != tt.wantRank {
				t.Fatalf("follows the ranking: %v, want %v", rt.FollowsClass(), tt.wantRank)
			}
		})
	}
}
