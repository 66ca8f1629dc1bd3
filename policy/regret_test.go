package policy

import (
	"errors"
	"testing"
)

// The hand-worked keys below are FreqWeight*freq + Weight*regret +
// last/window; steps count accesses.
// regretCases are TestRegret's replays: each spec, capacity and the steps
// with the victims they expect.
var regretCases = []struct {
	name  string
	spec  string
	cap   int64
	steps []step
}{
	{
		// Keys are 6*regret + last. 1 returns one step after its
		// eviction: regret 1, key 6+4 = 10. It outlives 3, 4, 5, 6, 7
		// and 8 (keys 3, 5, 6, 7, 8, 9) where LRU would evict it at
		// step 6, and goes at step 11, tied with 9 (key 10) and older.
		name: "regret anchors a block",
		spec: "regret_aware:window=1,freq_weight=0", cap: 2,
		steps: []step{acc(1), acc(2), acc(3, 1), acc(1, 2), acc(4, 3), acc(5, 4), acc(6, 5),
			acc(7, 6), acc(8, 7), acc(9, 8), acc(10, 1)},
	},
	{
		// Horizon 2: 1 returns at gap 2 and gets regret 1/2, key
		// 3+5 = 8, and outlives 4, 5 and 6 (keys 4, 6, 7).
		name: "regret shrinks with the gap",
		spec: "regret_aware:window=1,freq_weight=0,horizon=2", cap: 2,
		steps: []step{acc(1), acc(2), acc(3, 1), acc(4, 2), acc(1, 3), acc(5, 4), acc(6, 5),
			acc(7, 6), acc(8, 1)},
	},
	{
		// Horizon 2: 1 returns at gap 3, past the horizon: its ghost
		// has expired, it starts afresh (key 6) and goes at step 8, as
		// in LRU.
		name: "no regret past the horizon",
		spec: "regret_aware:window=1,freq_weight=0,horizon=2", cap: 2,
		steps: []step{acc(1), acc(2), acc(3, 1), acc(4, 2), acc(5, 3), acc(1, 4), acc(6, 5),
			acc(7, 1)},
	},
	{
		// Decay 0.5: 1 gets regret 1 (key 10), then its hit at step 5
		// halves it: key 3+5 = 8, so it goes at step 9 (tied with 6,
		// older) instead of step 12.
		name: "regret decays at each access",
		spec: "regret_aware:window=1,freq_weight=0,decay=0.5", cap: 2,
		steps: []step{acc(1), acc(2), acc(3, 1), acc(1, 2), acc(1), acc(4, 3), acc(5, 4),
			acc(6, 5), acc(7, 1)},
	},
	{
		// Keys 1.5*freq + last/2: 1 reaches 3+1 = 4 and survives 2
		// (3) and 3 (3.5), then ties 4 (1.5+2.5) and, older, goes.
		name: "frequency",
		spec: "regret_aware:weight=0,window=2", cap: 2,
		steps: []step{acc(1), acc(1), acc(2), acc(3, 2), acc(4, 3), acc(5, 1)},
	},
	{
		// With the defaults and a capacity of 2 blocks (window 2) 1's
		// regret (6, at gap 1) and second access (1.5) are worth 15
		// steps of recency: key 11 against 1.5+step/2 for newcomers,
		// so it outlives 2..7 where LRU would evict it at step 6.
		name: "defaults",
		spec: "regret_aware", cap: 2,
		steps: []step{acc(1), acc(2), acc(3, 1), acc(1, 2), acc(4, 3), acc(5, 4), acc(6, 5),
			acc(7, 6), acc(8, 7)},
	},
}

func TestRegret(t *testing.T) {
	for _, tt := range regretCases {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, tt.spec, Env{CapacityBlocks: int(tt.cap)}), tt.cap, tt.steps)
		})
	}
}

func TestRegretGhostsExpire(t *testing.T) {
	p := NewRegret(RegretConfig{Weight: 6, Horizon: 2, Decay: 0.98, FreqWeight: 1.5, RecencyWeight: 1}, Env{})
	s := NewSet(p, 2)
	for i := range 50 {
		b := &Block{ID: BlockID(i), Meta: Meta{Size: 1}}
		s.Access(b, Time(i))
		if _, err := s.Admit(b, Time(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// One eviction a step: the ghosts of the last horizon+1 evictions are
	// kept (the newest was evicted at the current step).
	if g := p.ghosts.len(); g != 3 || p.order.len() != 3 {
		t.Fatalf("ghosts = %d (list %d), want 3", g, p.order.len())
	}
}

// TestRegretNeedsARead: a block evicted without a single access (placed
// in the fast tier and never read, as the daemon's registered blocks are)
// gains no regret at its first access, while a block read before its
// eviction does; and a block read only while it was not resident,
// admitted and evicted unread (the daemon promotes at the end of an
// epoch, after other blocks' reads) gains regret when it is read again.
// Keys are 6*regret + last; steps count accesses. Each event is an
// operation ('a' access, 'i' admit, 'e' evict) and a block.
func TestRegretNeedsARead(t *testing.T) {
	type event struct {
		op byte
		id BlockID
	}
	for _, tt := range []struct {
		name   string
		events []event
		victim BlockID
		why    string
	}{{
		// 2 returns at gap 1: key 6+2. 1, placed and evicted with it,
		// returns at step 5: key 5 without regret (with it, 5.25+5).
		name: "placed",
		events: []event{{'i', 1}, {'a', 2}, {'i', 2}, {'e', 1}, {'e', 2}, {'a', 2}, {'i', 2},
			{'a', 3}, {'a', 3}, {'a', 1}, {'i', 1}},
		victim: 1, why: "the placed block's first read is no regret",
	}, {
		// 1, placed and evicted, is read at step 1 and admitted after
		// another block's read, evicted unread and read again at step
		// 3: regret, key 6+3. 3, read at step 4 (key 4), goes first.
		name: "read while slow",
		events: []event{{'i', 1}, {'e', 1}, {'a', 1}, {'a', 2}, {'i', 1}, {'e', 1}, {'a', 1}, {'i', 1},
			{'a', 3}, {'i', 3}},
		victim: 3, why: "block 1 was read before its second eviction",
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p := NewRegret(RegretConfig{Weight: 6, Horizon: 24, Decay: 1, RecencyWeight: 1, Window: 1}, Env{})
			blocks := map[BlockID]*Block{}
			for _, ev := range tt.events {
				b := blocks[ev.id]
				if b == nil {
					b = &Block{ID: ev.id, Meta: Meta{Size: 1}}
					blocks[ev.id] = b
				}
				map[byte]func(*Block, Time){'a': p.Access, 'i': p.Admit, 'e': p.Evict}[ev.op](b, 0)
			}
			if v, ok := p.Victim(0); !ok || v.ID != tt.victim {
				t.Fatalf("victim %v, want %d: %s", blockIDs([]*Block{v}), tt.victim, tt.why)
			}
		})
	}
}

func TestRegretParams(t *testing.T) {
	p, err := New("regret_aware:weight=12,horizon=64", Env{})
	if err != nil {
		t.Fatal(err)
	}
	c := p.(*Regret).cfg
	want := RegretConfig{Weight: 12, Horizon: 64, Decay: 0.98, FreqWeight: 1.5, RecencyWeight: 1}
	if c != want {
		t.Fatalf("config %+v, want %+v", c, want)
	}
	for _, spec := range []string{"regret_aware:decay=0", "regret_aware:horizon=0",
		"regret_aware:weight=-1", "regret_aware:decay=x", "regret_aware:nope=1"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("New(%q): err %v, want ErrBadParam", spec, err)
		}
	}
}

// TestRegretRescale checks that when the capacity in blocks is unknown the
// recency window follows the high-water mark and the heap stays ordered.
func TestRegretRescale(t *testing.T) {
	p := NewRegret(RegretConfig{Weight: 6, Horizon: 24, Decay: 0.98, FreqWeight: 1.5, RecencyWeight: 1}, Env{})
	s := NewSet(p, 100)
	for i := range 300 {
		b := &Block{ID: BlockID(i % 150), Meta: Meta{Size: 1}}
		if !s.Access(b, Time(i)) {
			if _, err := s.Admit(b, Time(i), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if p.scale < 80 || p.scale > 100 {
		t.Fatalf("scale %v, want the capacity in blocks (100) within a quarter", p.scale)
	}
	min := p.k.h.min()
	for _, e := range p.k.h.items[p.k.h.root():] {
		it := e.it
		if e.key != it.key || e.tie != it.tie || e.rank != it.rank {
			t.Fatalf("heap slot (%v, %d, %d) differs from its item (%v, %d, %d)", e.key, e.tie, e.rank, it.key, it.tie, it.rank)
		}
		if it.key < min.key {
			t.Fatalf("heap out of order: min key %v, item key %v", min.key, it.key)
		}
		want := 1.5*it.freq + 6*it.regret + float64(it.last)/p.scale
		if it.key != want {
			t.Fatalf("stale key %v, want %v", it.key, want)
		}
	}
}
