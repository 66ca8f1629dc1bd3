package policy

import (
	"math"
	"testing"
)

// TestLeCaRRegretShiftsWeight: with block 1 accessed twice (LRU's choice,
// the least recent) and block 2 once (LFU's choice), each expert in turn
// makes the eviction; a miss on the evicted block must move weight to the
// other expert by e^(λ·r), r = 0.005^(age/c), as in the paper's update.
func TestLeCaRRegretShiftsWeight(t *testing.T) {
	const c, lr = 2, 0.45
	seen := map[uint8]bool{}
	for seed := int64(1); len(seen) < 2 && seed < 100; seed++ {
		p := NewLeCaR(lr, 0.005, Env{CapacityBlocks: c, Seed: seed})
		d := newUnitDriver(t, p, c)
		d.run(1, 1, 2) // clock 3: LRU proposes 1, LFU proposes 2
		ev := d.access(3)
		if len(ev) != 1 {
			t.Fatalf("seed %d: evicted %v, want one block", seed, ev)
		}
		by, other := expertRecency, expertFrequency
		if ev[0] == 2 {
			by, other = expertFrequency, expertRecency
		} else if ev[0] != 1 {
			t.Fatalf("seed %d: evicted %d, neither expert's choice", seed, ev[0])
		}
		seen[by] = true
		if w := p.learn.w; w != [2]float64{0.5, 0.5} {
			t.Fatalf("seed %d: weights moved before any regret: %v", seed, w)
		}
		// The evicted block returns one request later (evicted at clock 4,
		// accessed at clock 5).
		d.access(ev[0])
		grow := 0.5 * math.Exp(lr*math.Pow(0.005, 1.0/c))
		want := grow / (grow + 0.5)
		if got := p.learn.w[other]; math.Abs(got-want) > 1e-12 {
			t.Fatalf("seed %d: expert %d evicted %d; other expert's weight %v, want %v", seed, by, ev[0], got, want)
		}
		if s := p.learn.w[0] + p.learn.w[1]; math.Abs(s-1) > 1e-12 {
			t.Fatalf("weights sum to %v", s)
		}
	}
	if len(seen) < 2 {
		t.Fatalf("only experts %v chose a victim in 100 seeds", seen)
	}
}

// TestLeCaRLearnsFrequency: a hot set revisited after a scan that LRU
// always falls for moves the weight to LFU.
func TestLeCaRLearnsFrequency(t *testing.T) {
	p := NewLeCaR(0.45, 0.005, Env{CapacityBlocks: 10, Seed: 7})
	d := newUnitDriver(t, p, 10)
	scan := BlockID(1000)
	for range 300 {
		for id := BlockID(1); id <= 5; id++ {
			d.access(id)
		}
		for range 8 {
			scan++
			d.access(scan)
		}
	}
	if lru, lfu := p.Weights(); lfu <= lru {
		t.Fatalf("weights LRU %v LFU %v: want LFU ahead", lru, lfu)
	}
}

func TestLeCaRHistoryBounded(t *testing.T) {
	const c = 16
	p := NewLeCaR(0.45, 0.005, Env{CapacityBlocks: c, Seed: 1})
	d := newUnitDriver(t, p, c)
	for i := range 5000 {
		d.access(BlockID(i*31) % 200)
		if h := p.learn.hist.len(); h > c || p.entries.len() != h+p.Len() {
			t.Fatalf("step %d: %d history entries, %d entries, %d resident", i, h, p.entries.len(), p.Len())
		}
	}
}

// TestLeCaRVictimStable: asking twice without an event gives one answer.
func TestLeCaRVictimStable(t *testing.T) {
	p := NewLeCaR(0.45, 0.005, Env{Seed: 3})
	d := newUnitDriver(t, p, 4)
	d.run(1, 1, 2, 3, 3, 3, 4)
	a, _ := p.Victim(0)
	for range 20 {
		if b, _ := p.Victim(0); b != a {
			t.Fatalf("victim changed from %d to %d without an event", a.ID, b.ID)
		}
	}
}
