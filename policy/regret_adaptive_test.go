package policy

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// Steps count accesses. With capacity 2 the protected share (0.5 of 2
// blocks, at most capacity-1) is one block.
func TestRegretAdaptive(t *testing.T) {
	// 1 is evicted at step 3 and returns at step 4: a regret at reuse
	// distance 3 (its last access was step 1). That access is served as
	// in LRU; 1 goes again at step 6 and returns at step 9, outside the
	// horizon of 2, so this admission is protected until 9 + 1.5*3 = 13.5.
	prefix := []step{acc(1), acc(2), acc(3, 1), acc(1, 2), acc(4, 3), acc(5, 1), acc(6, 4), acc(7, 5),
		acc(1, 6)}
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{
			// 1 outlives 7, 8, 9 and 10 (LRU would evict it at step 11),
			// then its protection expires unused and it goes first.
			name:  "regret protects the next admission until it expires",
			spec:  "regret_adaptive:horizon=2",
			steps: append(append([]step{}, prefix...), acc(8, 7), acc(9, 8), acc(10, 9), acc(11, 10), acc(12, 1)),
		},
		{
			// The hit at step 11 ends the protection: 1 is the most recent
			// ordinary block and goes after 10, as in LRU.
			name:  "a hit ends the protection",
			spec:  "regret_adaptive:horizon=2",
			steps: append(append([]step{}, prefix...), acc(8, 7), acc(9, 8), acc(1), acc(10, 9), acc(11, 1)),
		},
		{
			// ttl=3: protected until 9 + 9 = 18 (inclusive).
			name: "the protection lasts ttl x the reuse distance",
			spec: "regret_adaptive:horizon=2,ttl=3",
			steps: append(append([]step{}, prefix...), acc(8, 7), acc(9, 8), acc(10, 9), acc(11, 10), acc(12, 11),
				acc(13, 12), acc(14, 13), acc(15, 14), acc(16, 15), acc(17, 1)),
		},
		{
			name:  "protect=0 is LRU",
			spec:  "regret_adaptive:horizon=2,protect=0",
			steps: append(append([]step{}, prefix...), acc(8, 7), acc(9, 1)),
		},
		{
			// memory=4: the regret of step 4 is forgotten by step 9.
			name:  "regret memory expires",
			spec:  "regret_adaptive:horizon=2,memory=4",
			steps: append(append([]step{}, prefix...), acc(8, 7), acc(9, 1)),
		},
		{
			// Within the horizon every return is a regret served as LRU.
			name:  "a regretted access itself is not protected",
			spec:  "regret_adaptive:horizon=24,uniform=2",
			steps: []step{acc(1), acc(2), acc(3, 1), acc(1, 2), acc(4, 3), acc(5, 1), acc(6, 4)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, tt.spec, Env{CapacityBlocks: 2}), 2, tt.steps)
		})
	}
}

// TestRegretAdaptiveIsLRUWithoutRegret checks failure mode 3: as long as
// regret protects nothing, the victims are LRU's, in the same order.
func TestRegretAdaptiveIsLRUWithoutRegret(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		universe int
		capacity int
		minSteps int // steps before the first protection
	}{
		{"scan: no regret", "regret_adaptive", 1 << 30, 8, 5000},
		{"random: regrets, nothing protected", "regret_adaptive:protect=0,uniform=2", 60, 20, 5000},
		{"random: until the first protection", "regret_adaptive", 400, 20, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ra := mustNew(t, tt.spec, Env{CapacityBlocks: tt.capacity}).(*RegretAdaptive)
			a := newUnitDriver(t, ra, tt.capacity)
			b := newUnitDriver(t, NewLRU(), tt.capacity)
			r := rand.New(rand.NewPCG(1, 2))
			steps := 0
			for i := range 5000 {
				id := BlockID(i)
				if tt.universe < 1<<30 {
					id = BlockID(r.IntN(tt.universe))
				}
				ea, eb := a.access(id), b.access(id)
				if ra.Protected() > 0 {
					break
				}
				steps++
				if len(ea) != len(eb) || (len(ea) > 0 && ea[0] != eb[0]) {
					t.Fatalf("step %d: evicted %v, LRU %v", i+1, ea, eb)
				}
			}
			if steps < tt.minSteps {
				t.Fatalf("only %d steps before the first protection, want %d", steps, tt.minSteps)
			}
		})
	}
}

// TestRegretAdaptiveSweep checks failure mode 2: on a loop one block larger
// than the cache every eviction is regretted; the policy switches to sweep
// mode and keeps a stable subset, where LRU never hits.
func TestRegretAdaptiveSweep(t *testing.T) {
	tests := []struct {
		name             string
		spec             string
		loop, capacity   int
		wantSweep        bool
		minHits, maxHits int // in the last 10 loops
	}{
		{"loop of 5 in 4", "regret_adaptive", 5, 4, true, 30, 30},
		{"loop of 12 in 10", "regret_adaptive", 12, 10, true, 90, 90},
		{"sweep mode off", "regret_adaptive:uniform=2", 5, 4, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ra := mustNew(t, tt.spec, Env{CapacityBlocks: tt.capacity}).(*RegretAdaptive)
			d := newUnitDriver(t, ra, tt.capacity)
			hits := 0
			for i := range 40 * tt.loop {
				id := BlockID(i % tt.loop)
				// the cache is full after the first loop, so an access
				// that evicts nothing is a hit
				if ev := d.access(id); i >= 30*tt.loop && len(ev) == 0 {
					hits++
				}
			}
			if ra.Sweeping() != tt.wantSweep {
				t.Fatalf("sweeping = %v, want %v", ra.Sweeping(), tt.wantSweep)
			}
			if hits < tt.minHits || hits > tt.maxHits {
				t.Fatalf("%d hits in the last 10 loops, want %d..%d", hits, tt.minHits, tt.maxHits)
			}
			if ra.Protected() > tt.capacity-1 {
				t.Fatalf("%d protected blocks, want at most capacity-1 = %d", ra.Protected(), tt.capacity-1)
			}
		})
	}
}

func TestRegretAdaptiveParams(t *testing.T) {
	p := mustNew(t, "regret_adaptive:horizon=64,memory=512,protect=0.25,ttl=2,uniform=0.8,guard=4", Env{})
	want := RegretAdaptiveConfig{Horizon: 64, Memory: 512, Protect: 0.25, TTL: 2, Uniform: 0.8, Guard: 4}
	if c := p.(*RegretAdaptive).cfg; c != want || p.(*RegretAdaptive).guard == nil {
		t.Fatalf("config %+v, want %+v", c, want)
	}
	for _, spec := range []string{"regret_adaptive:horizon=0", "regret_adaptive:memory=0",
		"regret_adaptive:protect=1.5", "regret_adaptive:protect=-0.1", "regret_adaptive:ttl=0",
		"regret_adaptive:uniform=0", "regret_adaptive:guard=-1", "regret_adaptive:ttl=x", "regret_adaptive:nope=1"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("New(%q): err %v, want ErrBadParam", spec, err)
		}
	}
}

// TestRegretAdaptiveStateBound checks that ghosts live Horizon accesses
// and regret records Memory accesses, whatever the trace's length, and
// that forgetting every block frees every record, with and without the
// guard.
func TestRegretAdaptiveStateBound(t *testing.T) {
	for _, guard := range []float64{0, 8} {
		ra := NewRegretAdaptive(RegretAdaptiveConfig{Horizon: 8, Memory: 64, Protect: 0.5, TTL: 1.5, Uniform: 0.9,
			Guard: guard}, Env{CapacityBlocks: 16})
		d := newUnitDriver(t, ra, 16)
		r := rand.New(rand.NewPCG(3, 4))
		for range 20000 {
			d.access(BlockID(r.IntN(40)))
			if g := ra.ghostOrder.len(); g > 9 {
				t.Fatalf("guard %v: %d ghosts, want at most horizon+1 = 9", guard, g)
			}
			if m := ra.memoOrder.len(); m > 65 {
				t.Fatalf("guard %v: %d regret records, want at most memory+1 = 65", guard, m)
			}
			if ra.nprot() != ra.prot.len() || ra.nprot()+ra.ordinary.len() != ra.Len() || ra.recent.len() != ra.Len() {
				t.Fatalf("guard %v: protected %d (heap %d) + ordinary %d != %d resident (recent %d)", guard,
					ra.nprot(), ra.prot.len(), ra.ordinary.len(), ra.Len(), ra.recent.len())
			}
		}
		for id := range BlockID(40) {
			ra.Forget(d.block(id))
		}
		if ra.Len() != 0 || ra.ghostOrder.len() != 0 || ra.memoOrder.len() != 0 || ra.nprot() != 0 || ra.tab.n != 0 {
			t.Fatalf("guard %v: after forgetting every block: %d resident, %d ghosts, %d records, %d protected, "+
				"%d table records", guard, ra.Len(), ra.ghostOrder.len(), ra.memoOrder.len(), ra.nprot(), ra.tab.n)
		}
	}
}
