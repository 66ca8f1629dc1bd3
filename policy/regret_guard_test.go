package policy

import (
	"math/rand/v2"
	"testing"
)

// hitsOf replays ids through p in a cache of capacity unit blocks and
// returns its hits.
func hitsOf(t *testing.T, p Policy, capacity int, ids []BlockID) int {
	d := newUnitDriver(t, p, capacity)
	hits := 0
	for _, id := range ids {
		b := d.block(id)
		d.now++
		if d.s.Access(b, d.now) {
			hits++
			continue
		}
		if _, err := d.s.Admit(b, d.now, nil); err != nil {
			t.Fatal(err)
		}
	}
	return hits
}

// TestRegretGuard: with the guard, regret_adaptive hits at least 99% as
// often as LRU and as itself without the guard, within two capacities'
// worth of hits, on traces where either leads.
func TestRegretGuard(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	random := make([]BlockID, 20000)
	for i := range random {
		random[i] = BlockID(r.IntN(30))
	}
	loop := make([]BlockID, 20000)
	for i := range loop {
		loop[i] = BlockID(i % 24)
	}
	phases := make([]BlockID, 20000) // a loop, then a hot set with noise
	for i := range phases {
		phases[i] = BlockID(i % 24)
		if i >= 10000 {
			phases[i] = BlockID(100 + r.IntN(12))
			if r.IntN(3) == 0 {
				phases[i] = BlockID(200 + r.IntN(1000))
			}
		}
	}
	tests := []struct {
		name     string
		ids      []BlockID
		capacity int
	}{
		{"uniform random over 30 in 20", random, 20},
		{"loop of 24 in 20", loop, 20},
		{"loop, then a hot set", phases, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lru := hitsOf(t, NewLRU(), tt.capacity, tt.ids)
			plain := hitsOf(t, mustNew(t, "regret_adaptive:guard=0", Env{}), tt.capacity, tt.ids)
			guarded := hitsOf(t, mustNew(t, "regret_adaptive", Env{}), tt.capacity, tt.ids)
			t.Logf("hits: lru %d, unguarded %d, guarded %d", lru, plain, guarded)
			for name, h := range map[string]int{"lru": lru, "unguarded": plain} {
				if float64(guarded) < 0.99*float64(h)-float64(2*tt.capacity) {
					t.Errorf("guarded %d hits, below 99%% of %s's %d", guarded, name, h)
				}
			}
		})
	}
}

// TestRegretGuardOff: a block admitted without an access just before (a
// lower tier's demotion) turns the guard off for good, and the victims are
// the unguarded policy's.
func TestRegretGuardOff(t *testing.T) {
	ra := mustNew(t, "regret_adaptive", Env{CapacityBlocks: 4}).(*RegretAdaptive)
	plain := mustNew(t, "regret_adaptive:guard=0", Env{CapacityBlocks: 4}).(*RegretAdaptive)
	blocks := make([]Block, 8)
	for i := range blocks {
		blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
	}
	for _, p := range []Policy{ra, plain} {
		for i := range 4 {
			p.Admit(&blocks[i], Time(i))
		}
		p.Access(&blocks[0], 5)
	}
	if !ra.guard.off {
		t.Fatal("guard on after admissions without accesses")
	}
	if ra.guard.lruOrder.len() != 0 || ra.guard.ra != nil {
		t.Error("the guard is off but keeps its simulations")
	}
	a, _ := ra.Victim(6)
	b, _ := plain.Victim(6)
	if a != b || ra.FollowsLRU() {
		t.Fatalf("victim %d, unguarded %d; follows LRU %v", a.ID, b.ID, ra.FollowsLRU())
	}
}

// TestRegretGuardSwitch: the guard follows the simulation ahead by more
// than guardMargin decayed hits (leaving LRU: by guardZ standard
// deviations of a tie more) and keeps its last choice within the margin;
// following LRU, the victims are the blocks the simulated LRU
// evicted that the real cache still holds.
func TestRegretGuardSwitch(t *testing.T) {
	g := newRAGuard(RegretAdaptiveConfig{Horizon: 8, Memory: 64, Protect: 0.5, TTL: 2, Uniform: 0.5, Guard: 8}, Env{}, newRATable(0))
	blocks := make([]Block, 7)
	for i := range blocks {
		blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
	}
	const capacity = 2
	steps := []struct {
		lru, ra   float64 // counters before the access
		followLRU bool    // after it
	}{
		{0, 0, false},
		{5, 0, true},    // LRU ahead by more than the margin
		{5, 4.5, true},  // within the margin: the last choice stays
		{0, 5, true},    // regret_adaptive ahead, within 1 + 2 sqrt(5) of a tie
		{0, 9, false},   // regret_adaptive ahead beyond the noise of a tie
		{4.5, 5, false}, // within the margin again
		{10, 1, true},
	}
	for i, s := range steps {
		g.lruHits, g.raHits = s.lru, s.ra
		g.access(&blocks[i], Time(i), capacity)
		if g.followLRU != s.followLRU {
			t.Fatalf("step %d (lru %.1f, ra %.1f): followLRU %v, want %v", i, s.lru, s.ra, g.followLRU, s.followLRU)
		}
	}
	// The simulated LRU (capacity 2) holds blocks 5 and 6 and evicted 0-4,
	// newest first; the real cache holds 1, 3 and 5.
	real := map[BlockID]bool{1: true, 3: true, 5: true}
	for id := range real {
		g.tab.add(&blocks[id]).res[0] = true
	}
	v, ok := g.victim()
	if !ok || v.ID != 3 {
		t.Fatalf("victim %v %v, want block 3 (the newest LRU eviction still resident)", v, ok)
	}
}
