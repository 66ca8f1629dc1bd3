package trace

import (
	"testing"
)

// The seed study's workload parameters.
var seedWorkloads = []struct {
	name         string
	pages, steps int
}{
	{"chat_continuation", 80, 512},
	{"periodic_reuse", 96, 640},
	{"adversarial_burst", 112, 640},
}

func TestSeedWorkloadShapes(t *testing.T) {
	for _, w := range seedWorkloads {
		for _, seed := range []int64{7, 42, 91} {
			recs := mustWorkload(t, w.name, WorkloadParams{Seed: seed})
			if len(recs) != w.steps {
				t.Errorf("%s seed %d: %d records, want %d", w.name, seed, len(recs), w.steps)
			}
			size := map[uint64]int64{}
			for i, r := range recs {
				if r.Time != int64(i) || r.Op != OpAccess {
					t.Fatalf("%s: record %d: time %d op %d, want time %d access", w.name, i, r.Time, r.Op, i)
				}
				if r.Block >= uint64(w.pages) {
					t.Fatalf("%s: block %d out of %d pages", w.name, r.Block, w.pages)
				}
				if r.Meta.Size < 2*(2048-64) || r.Meta.Size > 2*(2048+64) {
					t.Fatalf("%s: block %d size %d outside 2048+/-64 scalars at fp16", w.name, r.Block, r.Meta.Size)
				}
				if s, ok := size[r.Block]; ok && s != r.Meta.Size {
					t.Fatalf("%s: block %d changed size %d -> %d", w.name, r.Block, s, r.Meta.Size)
				}
				size[r.Block] = r.Meta.Size
			}
		}
	}
}

func TestPeriodicReuseDistanceIsPeriod(t *testing.T) {
	for _, p := range []WorkloadParams{{Seed: 7}, {Pages: 30, Steps: 200, Period: 7}, {Pages: 11, Steps: 100}} {
		recs := mustWorkload(t, "periodic_reuse", p)
		period := int64(11)
		if p.Period != 0 {
			period = int64(p.Period)
		}
		for _, g := range gaps(recs) {
			if g != period {
				t.Fatalf("%+v: reuse gap %d, want the period %d", p, g, period)
			}
		}
		pages := 96
		if p.Pages != 0 {
			pages = p.Pages
		}
		seen := map[uint64]bool{}
		for _, r := range recs {
			seen[r.Block] = true
		}
		if len(seen) != pages {
			t.Errorf("%+v: %d distinct pages, want all %d", p, len(seen), pages)
		}
		if h := lruHitRatio(recs, int(period)-1); h != 0 {
			t.Errorf("%+v: LRU with period-1 pages hit %.3f, want 0 (the cycle exceeds it)", p, h)
		}
		if h := lruHitRatio(recs, int(period)); h < 0.8 {
			t.Errorf("%+v: LRU with period pages hit %.3f, want every reuse", p, h)
		}
	}
}

func TestAdversarialBurstShape(t *testing.T) {
	for _, seed := range []int64{7, 42, 91} {
		recs := mustWorkload(t, "adversarial_burst", WorkloadParams{Seed: seed})
		// Fresh reads (first in a pass) come from set (t/14) mod 3;
		// revisits come 12-20 steps after the previous read.
		last := map[uint64]int64{}
		revisits := 0
		for _, r := range recs {
			prev, seen := last[r.Block]
			last[r.Block] = r.Time
			if seen && r.Time-prev <= 20 {
				if r.Time-prev < 12 {
					t.Fatalf("seed %d: block %d revisited after %d steps, want 12-20", seed, r.Block, r.Time-prev)
				}
				revisits++
				continue
			}
			set := 0
			for set < 2 && int(r.Block) >= (set+1)*112/3 {
				set++
			}
			if want := int(r.Time/14) % 3; set != want {
				t.Fatalf("seed %d: step %d read block %d of set %d, want set %d", seed, r.Time, r.Block, set, want)
			}
		}
		if share := float64(revisits) / float64(len(recs)); share < 0.25 || share > 0.4 {
			t.Errorf("seed %d: %.2f of steps are revisits, want about a third", seed, share)
		}
		if h := lruHitRatio(recs, 10); h > 0.03 {
			t.Errorf("seed %d: LRU with 10 pages hit %.3f, want about 0", seed, h)
		}
	}
}

func TestChatIsRecencyHeavy(t *testing.T) {
	for _, seed := range []int64{7, 42, 91} {
		recs := mustWorkload(t, "chat_continuation", WorkloadParams{Seed: seed})
		writes := 0
		for _, r := range recs {
			if r.Write {
				if r.Block != uint64(writes) {
					t.Fatalf("seed %d: append of block %d, want %d", seed, r.Block, writes)
				}
				writes++
			}
			if r.Meta.Pos != int32(r.Block) || r.Meta.MaxLen != 80 || r.Meta.SeqLen != int32(writes) {
				t.Fatalf("seed %d: record %+v: meta disagrees with the sequence", seed, r)
			}
		}
		if writes != 80 {
			t.Errorf("seed %d: %d appends, want 80", seed, writes)
		}
		small, big := lruHitRatio(recs, 5), lruHitRatio(recs, 10)
		if small < 0.55 || big < 0.75 || big < small {
			t.Errorf("seed %d: LRU hit ratio %.3f at 5 pages, %.3f at 10: want recency-heavy", seed, small, big)
		}
	}
}
