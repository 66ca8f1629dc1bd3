package policy

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestRegretTieredIsRegretAdaptiveWithoutShortReuse: while no block is
// read again within reuse accesses, nothing is hot, the two simulations
// hold the same blocks and regret_tiered evicts what regret_adaptive
// evicts, in the same order.
func TestRegretTieredIsRegretAdaptiveWithoutShortReuse(t *testing.T) {
	tests := []struct {
		name       string
		reuse      string
		capacity   int
		next       func(i int, r *rand.Rand) BlockID
		wantHits   bool // regret_adaptive hits on the trace (so its protections matter)
		wantEvicts int  // evictions at least
	}{
		{"scan", "32", 8, func(i int, _ *rand.Rand) BlockID { return BlockID(i) }, false, 4000},
		{"loop of 12 in 10 (sweep mode)", "8", 10, func(i int, _ *rand.Rand) BlockID { return BlockID(i % 12) },
			true, 100},
		{"random over 60 blocks, reuse 1", "1", 20, func(i int, r *rand.Rand) BlockID {
			return BlockID(2*r.IntN(30) + i%2) // consecutive reads differ
		}, true, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, "regret_tiered:rank=class,reuse="+tt.reuse, Env{CapacityBlocks: tt.capacity}).(*RegretTiered)
			a := newUnitDriver(t, rt, tt.capacity)
			b := newUnitDriver(t, mustNew(t, "regret_adaptive", Env{CapacityBlocks: tt.capacity}), tt.capacity)
			r := rand.New(rand.NewPCG(5, 6))
			hits, evicts := 0, 0
			for i := range 5000 {
				id := tt.next(i, r)
				ea, eb := a.access(id), b.access(id)
				if len(ea) != len(eb) || (len(ea) > 0 && ea[0] != eb[0]) {
					t.Fatalf("step %d: evicted %v, regret_adaptive %v", i+1, ea, eb)
				}
				if rt.FollowsClass() {
					t.Fatalf("step %d: follows the class ranking with nothing hot", i+1)
				}
				if len(eb) == 0 && i >= tt.capacity {
					hits++
				}
				evicts += len(eb)
			}
			if (hits > 0) != tt.wantHits || evicts < tt.wantEvicts {
				t.Fatalf("%d hits, %d evictions: want hits %v and at least %d evictions", hits, evicts, tt.wantHits,
					tt.wantEvicts)
			}
		})
	}
}

// TestRegretTieredDuel: blocks 0, 1 and 2 are read every 12 accesses
// (hot, reuse 16) between scans of 9 new blocks; a cache of 10 under LRU
// never keeps them, the class ranking does. Then rounds of one block read
// 10 times and a loop of 8 others (read every 18 accesses: cold), 9
// blocks LRU holds entirely, while the class ranking keeps the lapsed
// 0, 1 and 2 (memory 1024) and evicts the loop: the duel returns to the
// inner policy and the loop hits. protect=0 keeps regret_adaptive's
// protections out of the way.
func TestRegretTieredDuel(t *testing.T) {
	tests := []struct {
		name    string
		env     Env
		phase2  bool
		wantCls bool
	}{
		{"hot blocks among scans: class ranking", Env{CapacityBlocks: 10}, false, true},
		{"per tier: class ranking", Env{CapacityBlocks: 10, PerTier: true}, false, true},
		{"then a loop LRU holds: back to the inner policy", Env{CapacityBlocks: 10}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, "regret_tiered:rank=class,reuse=16,protect=0", tt.env).(*RegretTiered)
			d := newUnitDriver(t, rt, 10)
			misses := hotMisses(d)
			if misses > 0 {
				t.Fatalf("%d misses on the hot blocks in the last 10 rounds, want 0", misses)
			}
			if tt.phase2 {
				misses = duelPhase2(d)
				if misses > 0 {
					t.Fatalf("%d misses on the loop in its last 10 rounds, want 0", misses)
				}
			}
			if rt.FollowsClass() != tt.wantCls {
				t.Fatalf("follows the class ranking: %v, want %v", rt.FollowsClass(), tt.wantCls)
			}
		})
	}
}

// duelPhase2 replays 40 rounds of block 20 read 10 times and blocks 10-17
// once each, and returns the misses of the last 10 rounds.
func duelPhase2(d *unitDriver) int {
	misses := 0
	for round := range 40 {
		for range 10 {
			d.access(20)
		}
		for id := range BlockID(8) {
			if ev := d.access(10 + id); round >= 30 && len(ev) > 0 {
				misses++
			}
		}
	}
	return misses
}

// lowerTierEvent is an event a tier below the fast one sends: a read of a
// block another tier holds, a demotion into this tier, a promotion out of
// it (a read and the block leaving).
type lowerTierEvent struct {
	op byte // 'r' read, 'd' demotion in, 'p' promotion out
	id BlockID
}

// TestRegretTieredLowerTier: fed as a tier below the fast one (blocks
// admitted without their read just before), the policy learns the class
// from reads of blocks it does not hold, keeps them from its inner
// regret_adaptive, and a promoted block leaves its simulations.
func TestRegretTieredLowerTier(t *testing.T) {
	tests := []struct {
		name      string
		events    []lowerTierEvent
		hot       []BlockID // hot at the end
		cold      []BlockID
		innerLen  int
		wantLower bool
		inSims    []BlockID
		notInSims []BlockID
	}{
		{"reads of blocks held elsewhere", []lowerTierEvent{{'r', 1}, {'r', 2}, {'r', 1}}, []BlockID{1},
			[]BlockID{2}, 0, false, nil, nil},
		{"demotions", []lowerTierEvent{{'r', 1}, {'r', 2}, {'r', 1}, {'d', 1}, {'d', 2}}, []BlockID{1},
			[]BlockID{2}, 2, true, []BlockID{1, 2}, nil},
		{"a promotion leaves the simulations", []lowerTierEvent{{'d', 1}, {'d', 2}, {'p', 1}, {'r', 3}},
			nil, []BlockID{1, 2, 3}, 1, true, []BlockID{2}, []BlockID{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, "regret_tiered", Env{CapacityBlocks: 4, PerTier: true}).(*RegretTiered)
			blocks := map[BlockID]*Block{}
			blk := func(id BlockID) *Block {
				if blocks[id] == nil {
					blocks[id] = &Block{ID: id, Meta: Meta{Size: 1}}
				}
				return blocks[id]
			}
			for i, ev := range tt.events {
				now := Time(i + 1)
				switch ev.op {
				case 'r':
					rt.Access(blk(ev.id), now)
				case 'd':
					rt.Admit(blk(ev.id), now)
				case 'p':
					rt.Access(blk(ev.id), now)
					rt.Evict(blk(ev.id), now)
				}
			}
			checkLowerTier(t, rt, tt.hot, tt.cold, tt.inSims, tt.notInSims)
			if rt.inner.Len() != tt.innerLen || rt.Len() != tt.innerLen || rt.lower != tt.wantLower {
				t.Fatalf("inner holds %d, policy %d, lower %v: want %d and lower %v", rt.inner.Len(), rt.Len(),
					rt.lower, tt.innerLen, tt.wantLower)
			}
		})
	}
}

// rtRecOf returns the record of block id, nil when the policy does not
// track it: a scan of the shared table's blocks.
func rtRecOf(rt *RegretTiered, id BlockID) *rtRec {
	for _, b := range rt.tab.ra.blocks {
		if b != nil && b.ID == id {
			return rt.tab.get(b)
		}
	}
	return nil
}

func checkLowerTier(t *testing.T, rt *RegretTiered, hot, cold, inSims, notInSims []BlockID) {
	t.Helper()
	for _, id := range hot {
		if r := rtRecOf(rt, id); r == nil || !rt.hot(r) {
			t.Errorf("block %d not hot", id)
		}
	}
	for _, id := range cold {
		if r := rtRecOf(rt, id); r == nil || rt.hot(r) {
			t.Errorf("block %d unknown or hot, want known and cold", id)
		}
	}
	for _, id := range inSims {
		if r := rtRecOf(rt, id); r == nil || !r.inL || !r.inC {
			t.Errorf("block %d not in both simulations", id)
		}
	}
	for _, id := range notInSims {
		if r := rtRecOf(rt, id); r == nil || r.inL || r.inC {
			t.Errorf("block %d in a simulation", id)
		}
	}
}

func TestRegretTieredParams(t *testing.T) {
	p := mustNew(t, "regret_tiered:reuse=40,memory=512,guard=4", Env{})
	want := RegretTieredConfig{Reuse: 40, Density: true, Span: 1, RegretAdaptiveConfig: RegretAdaptiveConfig{
		Horizon: 24, Memory: 512, Protect: 0.5, TTL: 1.5, Uniform: 0.9, Guard: 4}}
	if c := p.(*RegretTiered).cfg; c != want || p.(*RegretTiered).inner.cfg != want.RegretAdaptiveConfig {
		t.Fatalf("config %+v, want %+v", c, want)
	}
	if aa, ok := p.(AllAccesses); !ok || !aa.HearsAllAccesses() {
		t.Fatal("regret_tiered does not ask for every access")
	}
	for _, spec := range []string{"regret_tiered:reuse=0", "regret_tiered:guard=0", "regret_tiered:memory=0",
		"regret_tiered:protect=2", "regret_tiered:nope=1", "regret_tiered:rank=lfu", "regret_tiered:span=0"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("New(%q): err %v, want ErrBadParam", spec, err)
		}
	}
}

// TestRegretTieredForget: the simulations hold at most the capacity each,
// and forgetting every block frees every record, here and in the inner
// policy.
func TestRegretTieredForget(t *testing.T) {
	for _, env := range []Env{{CapacityBlocks: 16}, {CapacityBlocks: 16, PerTier: true}} {
		rt := mustNew(t, "regret_tiered:reuse=16", env).(*RegretTiered)
		d := newUnitDriver(t, rt, 16)
		r := rand.New(rand.NewPCG(7, 8))
		for range 20000 {
			d.access(BlockID(r.IntN(40)))
			if rt.simL.len() > 16 || rt.simC.len() > 16 || rt.real.len() != rt.Len() {
				t.Fatalf("simulations hold %d and %d, real lists %d of %d resident", rt.simL.len(), rt.simC.len(),
					rt.real.len(), rt.Len())
			}
		}
		for id := range BlockID(40) {
			rt.Forget(d.block(id))
		}
		if rt.Len() != 0 || rt.tab.n != 0 || rt.simL.len() != 0 || rt.simC.len() != 0 || rt.inner.tab.n != 0 {
			t.Fatalf("after forgetting every block: %d resident, %d records, simulations %d and %d, inner %d",
				rt.Len(), rt.tab.n, rt.simL.len(), rt.simC.len(), rt.inner.tab.n)
		}
	}
}

// TestRegretTieredRecordsBounded: on a stream of blocks each read once,
// records of blocks no cache holds go max(reuse, memory) accesses after
// their last read, so the policy holds about the three caches' blocks
// and that window's, not one record per block it ever heard.
func TestRegretTieredRecordsBounded(t *testing.T) {
	const capacity, window, blocks = 16, 64, 20000
	tests := []struct {
		name    string
		env     Env
		demoteN int // every demoteN-th read is followed by a demotion in (0: fast tier)
	}{
		{"fast tier", Env{CapacityBlocks: capacity}, 0},
		{"lower tier", Env{CapacityBlocks: capacity, PerTier: true}, 4},
		{"fast tier, capacity unknown", Env{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := mustNew(t, "regret_tiered:reuse=8,memory=64", tt.env).(*RegretTiered)
			most := 0
			if tt.demoteN == 0 {
				d := newUnitDriver(t, rt, capacity)
				for id := range BlockID(blocks) {
					d.access(id)
					most = max(most, rt.tab.n)
				}
			} else {
				most = feedLowerTier(rt, blocks, tt.demoteN, capacity)
			}
			if limit := 3*capacity + 4*(window+1); most > limit {
				t.Fatalf("held up to %d records after %d blocks, want at most %d", most, blocks, limit)
			}
		})
	}
}

// feedLowerTier reads n distinct blocks held elsewhere, demoting every
// k-th into a cache of capacity blocks (evicting its victims), and
// returns the most records rt held.
func feedLowerTier(rt *RegretTiered, n, k, capacity int) int {
	most := 0
	for i := range n {
		now := Time(i + 1)
		b := &Block{ID: BlockID(i), Meta: Meta{Size: 1}}
		rt.Access(b, now)
		if i%k == 0 {
			for rt.Len() >= capacity {
				v, _ := rt.Victim(now)
				rt.Evict(v, now)
			}
			rt.Admit(b, now)
		}
		most = max(most, rt.tab.n)
	}
	return most
}

// hotMisses drives d (a cache of 10 blocks) with 60 rounds of 12
// accesses, 3 blocks read again every round among 9 read once, and
// returns the misses of the 3 in the last 10 rounds.
func hotMisses(d *unitDriver) int {
	next, misses := BlockID(100), 0
	for round := range 60 {
		for i := range BlockID(12) {
			id := i
			if i >= 3 {
				id = next + i
			}
			if ev := d.access(id); id < 3 && round >= 50 && len(ev) > 0 {
				misses++
			}
		}
		next += 12
	}
	return misses
}
