package policy

import (
	"slices"
	"testing"
)

func TestCMSketch(t *testing.T) {
	s := newCMSketch(64, 10)
	if got := s.estimate(7); got != 0 {
		t.Fatalf("unseen block estimate %d, want 0", got)
	}
	s.increment(7)
	if got := s.estimate(7); got != 1 {
		t.Fatalf("after one access estimate %d, want 1 (doorkeeper only)", got)
	}
	if s.count(sketchHash(7)) != 0 {
		t.Fatal("first access reached the counters")
	}
	for range 5 {
		s.increment(7)
	}
	if got := s.estimate(7); got != 6 {
		t.Fatalf("after six accesses estimate %d, want 6", got)
	}
	for range 40 {
		s.increment(7)
	}
	if got := s.estimate(7); got != 16 {
		t.Fatalf("saturated estimate %d, want 16 (15 + doorkeeper)", got)
	}
	s.age()
	if got := s.estimate(7); got != 7 {
		t.Fatalf("after ageing estimate %d, want 7 (counters halved, doorkeeper cleared)", got)
	}
}

func TestCMSketchAgesByPeriod(t *testing.T) {
	s := newCMSketch(16, 1) // period 16 increments
	for range 8 {
		s.increment(1)
	}
	if got := s.estimate(1); got != 8 {
		t.Fatalf("estimate %d, want 8", got)
	}
	for i := range 8 {
		s.increment(BlockID(100 + i))
	}
	// The 16th increment halved the counters (7 -> 3) and cleared the
	// doorkeeper.
	if got := s.estimate(1); got != 3 {
		t.Fatalf("estimate after one period %d, want 3", got)
	}
}

func wtState(t *testing.T, p *WTinyLFU, step string, window, probation, protected []BlockID) {
	t.Helper()
	got := [][]BlockID{idsOf(&p.window), idsOf(&p.probation), idsOf(&p.protected)}
	want := [][]BlockID{window, probation, protected}
	for i := range got {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%s: window probation protected = %v, want %v", step, got, want)
		}
	}
}

// TestWTinyLFUAdmission walks the window, the SLRU and the duel with a
// capacity of 10 blocks: window 1, main 9, protected up to 7.
func TestWTinyLFUAdmission(t *testing.T) {
	p := NewWTinyLFU(0.1, 0.8, 10, Env{CapacityBlocks: 10})
	d := newUnitDriver(t, p, 10)
	d.run(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	wtState(t, p, "filled", []BlockID{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, nil, nil)
	// The first miss moves the window's oldest 9 blocks into probation;
	// then 10, seen once, duels 1, seen once: the candidate loses ties.
	d.expectEvicted(11, 10)
	wtState(t, p, "after 11", []BlockID{11}, []BlockID{9, 8, 7, 6, 5, 4, 3, 2, 1}, nil)
	// Probation hits move blocks to protected.
	d.run(1, 2, 1, 2)
	wtState(t, p, "after hits", []BlockID{11}, []BlockID{9, 8, 7, 6, 5, 4, 3}, []BlockID{2, 1})
	// 11 is accessed 3 more times: it beats probation's LRU block 3.
	d.run(11, 11, 11)
	d.expectEvicted(12, 3)
	wtState(t, p, "after 12", []BlockID{12}, []BlockID{11, 9, 8, 7, 6, 5, 4}, []BlockID{2, 1})
	// A one-hit candidate loses against a main block seen before.
	d.expectEvicted(13, 12)
}

func TestWTinyLFUProtectedOverflow(t *testing.T) {
	p := NewWTinyLFU(0.1, 0.3, 10, Env{CapacityBlocks: 10}) // protected up to 2
	d := newUnitDriver(t, p, 10)
	d.run(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	d.run(1, 2, 3)
	// 3 entered protected and pushed its LRU block 1 back to probation.
	wtState(t, p, "overflow", []BlockID{11}, []BlockID{1, 9, 8, 7, 6, 5, 4}, []BlockID{3, 2})
}

// TestWTinyLFUScanResistant: a hot set survives a long scan that flushes LRU.
func TestWTinyLFUScanResistant(t *testing.T) {
	hits := func(p Policy) int {
		d := newUnitDriver(t, p, 100)
		n := 0
		scan := BlockID(1000)
		for range 50 {
			for id := BlockID(1); id <= 50; id++ {
				if d.s.Contains(id) {
					n++
				}
				d.access(id)
			}
			for range 200 {
				scan++
				d.access(scan)
			}
		}
		return n
	}
	w, l := hits(NewWTinyLFU(0.01, 0.8, 10, Env{CapacityBlocks: 100})), hits(NewLRU())
	if w < 40*50 || l != 0 {
		t.Fatalf("hot-set hits: wtinylfu %d, lru %d; want wtinylfu >= 2000 and lru 0", w, l)
	}
}
