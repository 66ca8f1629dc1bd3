package policy

import (
	"math"
	"slices"
	"testing"
)

func cacheusState(t *testing.T, p *Cacheus, step string, sr, r []BlockID) {
	t.Helper()
	if got := idsOf(&p.sr); !slices.Equal(got, sr) {
		t.Fatalf("%s: SR %v, want %v", step, got, sr)
	}
	if got := idsOf(&p.r); !slices.Equal(got, r) {
		t.Fatalf("%s: R %v, want %v", step, got, r)
	}
}

// TestCacheusSRLRU walks SR-LRU with c = 4 (SR target 2, R at most 2).
func TestCacheusSRLRU(t *testing.T) {
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: 4, Seed: 1})
	d := newUnitDriver(t, p, 4)
	d.run(1, 2, 3, 4)
	cacheusState(t, p, "new blocks", []BlockID{4, 3, 2, 1}, nil)
	d.run(1, 2)
	cacheusState(t, p, "hits move to R", []BlockID{4, 3}, []BlockID{2, 1})
	d.run(3)
	// R holds at most c - 2 = 2: its LRU block 1 is demoted to SR's MRU end.
	cacheusState(t, p, "R overflow", []BlockID{1, 4}, []BlockID{3, 2})
	if !xentryOf(t, &p.entries, d.block(1)).demoted || p.demoted != 1 {
		t.Fatalf("block 1 demoted=%v, %d demoted", xentryOf(t, &p.entries, d.block(1)).demoted, p.demoted)
	}
	// A hit on the demoted block means R is too small: SR's target shrinks
	// by max(1, new/demoted) = 1 block, R may hold 3.
	d.run(1)
	cacheusState(t, p, "demoted hit", []BlockID{4}, []BlockID{1, 3, 2})
	if p.srFrac != 0.25 || p.demoted != 0 {
		t.Fatalf("SR share %v with %d demoted, want 0.25 and 0", p.srFrac, p.demoted)
	}
}

// TestCacheusHistoryHitOfNewGrowsSR: a block that left SR new and comes back
// means SR was too small; it is readmitted into R.
func TestCacheusHistoryHitOfNewGrowsSR(t *testing.T) {
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: 4, Seed: 1})
	d := newUnitDriver(t, p, 4)
	d.run(1, 2, 3, 4)
	// SR-LRU proposes 1, CR-LFU (all seen once, MRU first) proposes 4.
	ev := d.access(5)
	if len(ev) != 1 || (ev[0] != 1 && ev[0] != 4) {
		t.Fatalf("evicted %v, want 1 or 4", ev)
	}
	if !xentryOf(t, &p.entries, d.block(ev[0])).wasNew || p.newHist != 1 {
		t.Fatalf("evicted block wasNew=%v, %d new in history", xentryOf(t, &p.entries, d.block(ev[0])).wasNew, p.newHist)
	}
	before := p.srFrac
	d.access(ev[0])
	if p.srFrac != before+0.25 {
		t.Fatalf("SR share %v after a history hit of a new block, want %v", p.srFrac, before+0.25)
	}
	if xentryOf(t, &p.entries, d.block(ev[0])).n.queue != segR {
		t.Fatalf("readmitted block in segment %d, want R", xentryOf(t, &p.entries, d.block(ev[0])).n.queue)
	}
	if n := countNew(p); n != p.newHist {
		t.Fatalf("%d new entries in history, counter says %d", n, p.newHist)
	}
}

// TestCacheusCRLFUPrefersMRU: among the least frequent blocks CR-LFU
// proposes the most recently used.
func TestCacheusCRLFUPrefersMRU(t *testing.T) {
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: 4, Seed: 1})
	d := newUnitDriver(t, p, 4)
	d.run(1, 1, 2, 3, 4, 4, 2)
	// Frequencies 1:2 2:2 3:1 4:2; 3 is the only one seen once.
	if f := p.lfu.min(); f.b.ID != 3 {
		t.Fatalf("CR-LFU proposes %d, want 3", f.b.ID)
	}
	d.run(3)
	// Now all seen twice; 3 was accessed last.
	if f := p.lfu.min(); f.b.ID != 3 {
		t.Fatalf("CR-LFU proposes %d, want 3 (most recent among equals)", f.b.ID)
	}
}

// TestCacheusRegretShiftsWeight mirrors LeCaR's update.
func TestCacheusRegretShiftsWeight(t *testing.T) {
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: 8, Seed: 1})
	d := newUnitDriver(t, p, 8)
	d.run(1, 2, 3, 4, 5, 6, 7, 8)
	// SR-LRU proposes 1, CR-LFU 8: they disagree, so the evicted block's
	// history entry names the expert that chose it.
	ev := d.access(9)
	if len(ev) != 1 || (ev[0] != 1 && ev[0] != 8) {
		t.Fatalf("evicted %v, want 1 or 8", ev)
	}
	v := d.block(ev[0])
	by := xentryOf(t, &p.entries, v).n.queue
	if want := map[BlockID]uint8{1: expertRecency, 8: expertFrequency}[v.ID]; by != want {
		t.Fatalf("history entry of %d blames expert %d, want %d", v.ID, by, want)
	}
	d.access(v.ID)
	other := 1 - by
	grow := 0.5 * math.Exp(0.45*math.Pow(0.005, 1.0/8))
	if got, want := p.learn.w[other], grow/(grow+0.5); math.Abs(got-want) > 1e-12 {
		t.Fatalf("weight of the expert that kept %d: %v, want %v", v.ID, got, want)
	}
}

func TestCacheusAdaptLR(t *testing.T) {
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: 10, Seed: 1})
	window := func(hits int64) {
		p.reqs, p.hits = 10, hits
		p.adaptLR()
	}
	// λ unchanged and the hit rate rising: nothing to learn from.
	window(5)
	if p.LearningRate() != 0.45 {
		t.Fatalf("λ = %v, want 0.45", p.LearningRate())
	}
	// Ten windows without improvement: λ restarts at random.
	for range cacheusUnlearn {
		window(5)
	}
	lr := p.LearningRate()
	if lr == 0.45 || lr < cacheusMinLR || lr > 1 {
		t.Fatalf("λ after %d flat windows = %v, want a new value in [0.001,1]", cacheusUnlearn, lr)
	}
	// λ changed by δ and the hit rate rose: move by δ again.
	delta := lr - 0.45
	window(8)
	if got, want := p.LearningRate(), min(max(lr+delta, cacheusMinLR), 1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("λ after an improving window = %v, want %v", got, want)
	}
	// λ changed and the hit rate fell: step back.
	lr2, delta2 := p.LearningRate(), p.LearningRate()-lr
	window(2)
	if got, want := p.LearningRate(), min(max(lr2-delta2, cacheusMinLR), 1); math.Abs(got-want) > 1e-12 {
		t.Fatalf("λ after a worse window = %v, want %v", got, want)
	}
}

func countNew(p *Cacheus) int {
	n := 0
	for g := p.learn.hist.back(); g != nil; g = p.learn.hist.prevOf(g) {
		if e, ok := p.entries.get(g.b); ok && e.ghost && e.wasNew {
			n++
		}
	}
	return n
}

func TestCacheusStateBounded(t *testing.T) {
	const c = 16
	p := NewCacheus(0.45, 0.005, Env{CapacityBlocks: c, Seed: 1})
	d := newUnitDriver(t, p, c)
	for i := range 20000 {
		d.access(BlockID(i*31+i/7) % 300)
		h := p.learn.hist.len()
		demoted := 0
		for _, l := range []*list{&p.sr, &p.r} {
			for n := l.back(); n != nil; n = l.prevOf(n) {
				if e, ok := p.entries.get(n.b); ok && !e.ghost && e.demoted {
					demoted++
				}
			}
		}
		if h > c || p.entries.len() != h+p.Len() || p.demoted != demoted || p.newHist != countNew(p) {
			t.Fatalf("step %d: %d history, %d entries, %d resident, %d demoted, %d new", i, h, p.entries.len(), p.Len(), p.demoted, p.newHist)
		}
	}
}

// xentryOf returns the entry of b, failing the test if b is not tracked.
func xentryOf(t *testing.T, x *xentries, b *Block) *xentry {
	t.Helper()
	e, ok := x.get(b)
	if !ok {
		t.Fatalf("block %d not tracked", b.ID)
	}
	return e
}
