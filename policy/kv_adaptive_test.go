package policy

import (
	"errors"
	"testing"
)

// loopScan reads a hot set of 8 blocks 8 times, then the hot set between
// scan blocks read once, so the hot blocks come back every 16 accesses:
// with 12 blocks LRU misses every access after the warm-up while LFU keeps
// the hot set. It returns the hits.
func loopScan(d *unitDriver, steps int) (hits int) {
	d.t.Helper()
	for i := range 64 {
		d.access(BlockID(i % 8))
	}
	next := BlockID(1000)
	for step := range steps {
		id := BlockID(step / 2 % 8)
		if step%2 == 1 {
			id, next = next, next+1
		}
		if d.s.Contains(id) {
			hits++
		}
		d.access(id)
	}
	return hits
}

// The mix follows the expert whose shadow has more hits, and the real
// cache then hits as that expert does.
func TestKVAdaptiveFollowsLeader(t *testing.T) {
	tests := []struct {
		name    string
		experts string
		leader  int
	}{
		{"lfu second", "lru+lfu", 1},
		{"lfu first", "lfu+lru", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const capacity, steps = 12, 4000
			p := mustNew(t, "kv_adaptive:experts="+tc.experts, Env{CapacityBlocks: capacity}).(*KVAdaptive)
			mix := loopScan(newUnitDriver(t, p, capacity), steps)
			lfu := loopScan(newUnitDriver(t, mustNew(t, "lfu", Env{CapacityBlocks: capacity}), capacity), steps)
			lru := loopScan(newUnitDriver(t, mustNew(t, "lru", Env{CapacityBlocks: capacity}), capacity), steps)
			if lfu <= 2*lru {
				t.Fatalf("the trace should favour lfu: lfu %d hits, lru %d", lfu, lru)
			}
			if p.Leader() != tc.leader {
				t.Fatalf("leader %d, want %d (lfu); hits: mix %d, lfu %d, lru %d", p.Leader(), tc.leader, mix, lfu, lru)
			}
			if mix < lfu*9/10 {
				t.Fatalf("mix %d hot hits, lfu %d: want at least 90%% of lfu's", mix, lfu)
			}
		})
	}
}

// A block admitted without an access just before (the daemon's planner)
// turns the shadows off: the first expert decides alone, exactly as it
// would on its own.
func TestKVAdaptiveOffIsFirstExpert(t *testing.T) {
	mix := mustNew(t, "kv_adaptive:experts=lru+lfu", Env{CapacityBlocks: 4}).(*KVAdaptive)
	lru := mustNew(t, "lru", Env{CapacityBlocks: 4})
	blocks := make([]Block, 16)
	for i := range blocks {
		blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
	}
	now := Time(0)
	for i := range 4 {
		now++
		mix.Admit(&blocks[i], now)
		lru.Admit(&blocks[i], now)
	}
	if !mix.off || mix.shadows != nil || len(mix.reals) != 1 || mix.follows != 0 {
		t.Fatalf("after admissions without accesses: off %v, %d shadows, %d experts, following expert %d",
			mix.off, len(mix.shadows), len(mix.reals), mix.follows)
	}
	for i := 4; i < 16; i++ {
		now++
		mix.Access(&blocks[i%3], now)
		lru.Access(&blocks[i%3], now)
		a, _ := mix.Victim(now)
		b, _ := lru.Victim(now)
		if a != b {
			t.Fatalf("step %d: mix victim %d, lru %d", i, a.ID, b.ID)
		}
		mix.Evict(a, now)
		lru.Evict(b, now)
		mix.Admit(&blocks[i], now)
		lru.Admit(&blocks[i], now)
	}
}

// Forget drops every trace of a block from the real experts and shadows.
func TestKVAdaptiveForget(t *testing.T) {
	p := mustNew(t, "kv_adaptive", Env{CapacityBlocks: 4, Seed: 1}).(*KVAdaptive)
	d := newUnitDriver(t, p, 4)
	d.run(1, 2, 3, 4, 5, 6, 1, 2, 7, 8)
	for _, b := range d.blocks {
		d.s.Forget(b)
	}
	if p.Len() != 0 || len(p.res) != 0 {
		t.Fatalf("after forgetting every block: Len %d, %d residents", p.Len(), len(p.res))
	}
	for i, r := range p.reals {
		if r != nil && r.Len() != 0 {
			t.Fatalf("after forgetting every block: expert %d holds %d residents", i, r.Len())
		}
	}
	for i, s := range p.shadows {
		if s.n != 0 || s.out.order.len() != 0 || s.pol.Len() != 0 {
			t.Fatalf("shadow %d keeps %d blocks, %d evictions, policy Len %d", i, s.n, s.out.order.len(),
				s.pol.Len())
		}
	}
	if n := len(p.copies.m); n != 0 {
		t.Fatalf("after forgetting every block: copies of %d blocks kept", n)
	}
}

// Bad expert lists are refused.
func TestKVAdaptiveParams(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want error
	}{
		{"kv_adaptive:experts=nosuch", ErrUnknownPolicy},
		{"kv_adaptive:experts=lru+belady", ErrBadExpert},
		{"kv_adaptive:experts=kv_adaptive", ErrBadExpert},
		{"kv_adaptive:experts=streaming", ErrBadExpert},
		{"kv_adaptive:window=0", ErrBadParam},
		{"kv_adaptive:margin=-1", ErrBadParam},
	} {
		if _, err := New(tc.spec, Env{}); !errors.Is(err, tc.want) {
			t.Errorf("New(%q): %v, want %v", tc.spec, err, tc.want)
		}
	}
}

// Turning off after the shadows ran (accesses, then an admission without
// one) leaves no block's slot to a discarded shadow or expert: each slot
// is free or the first expert's, so that expert finds its residents
// through their slots, and it goes on as lru fed the same events.
func TestKVAdaptiveOffFreesSlots(t *testing.T) {
	mix := mustNew(t, "kv_adaptive:experts=lru+arc+hit_density", Env{CapacityBlocks: 4}).(*KVAdaptive)
	lru := mustNew(t, "lru", Env{CapacityBlocks: 4})
	blocks := make([]Block, 12)
	for i := range blocks {
		blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
	}
	both := func(f func(Policy)) { f(mix); f(lru) }
	now := Time(0)
	for i := range 8 { // misses: access, evict at capacity, admit
		now++
		b := &blocks[i]
		both(func(p Policy) { p.Access(b, now) })
		if mix.Len() == 4 {
			v, _ := lru.Victim(now)
			both(func(p Policy) { p.Evict(v, now) })
		}
		both(func(p Policy) { p.Admit(b, now) })
	}
	if mix.off || len(mix.shadows) != 3 {
		t.Fatalf("after accessed admissions: off %v, %d shadows", mix.off, len(mix.shadows))
	}
	v, _ := lru.Victim(now)
	both(func(p Policy) { p.Evict(v, now) })
	both(func(p Policy) { p.Admit(&blocks[8], now) }) // no access just before
	if !mix.off {
		t.Fatal("an admission without an access did not turn the shadows off")
	}
	first := &mix.real.(*LRU).nodes
	for i := range blocks {
		if n, ok := blocks[i].slot.(*node); blocks[i].slot != nil && (!ok || n.owner != first) {
			t.Errorf("block %d: slot %T held by a discarded policy", i, blocks[i].slot)
		}
	}
	for i := 9; i < 12; i++ {
		now++
		a, _ := mix.Victim(now)
		b, _ := lru.Victim(now)
		if a != b {
			t.Fatalf("step %d: mix victim %d, lru %d", i, a.ID, b.ID)
		}
		both(func(p Policy) { p.Evict(a, now) })
		both(func(p Policy) { p.Access(&blocks[i], now); p.Admit(&blocks[i], now) })
	}
}

// hotScan reads a hot set of hot blocks between blocks read once, so a
// hot block comes back every 2 x hot accesses, for steps accesses. It
// returns the hits in the second half.
func hotScan(d *unitDriver, hot, steps int) (hits int) {
	d.t.Helper()
	next := BlockID(1 << 20)
	for step := range steps {
		id := BlockID(step / 2 % hot)
		if step%2 == 1 {
			id, next = next, next+1
		}
		if d.s.Contains(id) && step >= steps/2 {
			hits++
		}
		d.access(id)
	}
	return hits
}

// With sampled shadows (a capacity above shadow blocks) only the leader's
// expert runs on the real cache: when LRU's shadow takes the lead (hot
// blocks come back within the capacity, FIFO evicts them as they reach
// its end), LRU takes the residents over, and the real cache then hits
// as LRU does.
func TestKVAdaptiveSampledFollowsLeader(t *testing.T) {
	tests := []struct {
		name    string
		experts string
		leader  int
	}{
		{"lru second", "fifo+lru", 1},
		{"lru first", "lru+fifo", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const capacity, hot, steps = 256, 64, 40000
			env := Env{CapacityBlocks: capacity}
			p := mustNew(t, "kv_adaptive:shadow=16,experts="+tc.experts, env).(*KVAdaptive)
			if p.rate != 16 {
				t.Fatalf("shadows sample 1 block in %d, want 16", p.rate)
			}
			mix := hotScan(newUnitDriver(t, p, capacity), hot, steps)
			lru := hotScan(newUnitDriver(t, mustNew(t, "lru", env), capacity), hot, steps)
			fifo := hotScan(newUnitDriver(t, mustNew(t, "fifo", env), capacity), hot, steps)
			if lru <= fifo*11/10 {
				t.Fatalf("the trace should favour lru: lru %d hits, fifo %d", lru, fifo)
			}
			if p.Leader() != tc.leader || p.follows != tc.leader {
				t.Fatalf("leader %d, real cache on expert %d, want %d (lru); hits: mix %d, lru %d, fifo %d",
					p.Leader(), p.follows, tc.leader, mix, lru, fifo)
			}
			for i, r := range p.reals {
				if (r != nil) != (i == tc.leader) {
					t.Errorf("expert %d runs on the real cache: %v, want only the leader's", i, r != nil)
				}
			}
			if p.real.Len() != capacity {
				t.Errorf("the leader's expert holds %d residents, want %d", p.real.Len(), capacity)
			}
			if mix < lru*95/100 {
				t.Fatalf("mix %d hot hits, lru %d (fifo %d): want at least 95%% of lru's", mix, lru, fifo)
			}
		})
	}
}
