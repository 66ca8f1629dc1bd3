package trace

import "testing"

func TestLongTailMixShape(t *testing.T) {
	tests := []struct {
		seed int64
		hot  int
	}{{7, 10}, {42, 10}, {91, 4}}
	for _, tc := range tests {
		recs := mustWorkload(t, "long_tail_mix", WorkloadParams{Seed: tc.seed, Hot: tc.hot, Steps: 4000})
		hot, tail := 0, map[uint64]int{}
		for _, r := range recs {
			if r.Block < uint64(tc.hot) {
				hot++
			} else {
				tail[r.Block]++
			}
		}
		if share := float64(hot) / float64(len(recs)); share < 0.66 || share > 0.74 {
			t.Errorf("seed %d: %.3f of reads on the hot set, want about 0.7", tc.seed, share)
		}
		first, last := tail[uint64(tc.hot)], tail[127]
		if first < 5*max(last, 1) {
			t.Errorf("seed %d: first tail page read %d times, last %d: want a Zipf tail", tc.seed, first, last)
		}
	}
}

func TestAdversarialPrefetchAlternates(t *testing.T) {
	for _, seed := range []int64{7, 42, 91} {
		recs := mustWorkload(t, "adversarial_prefetch", WorkloadParams{Seed: seed})
		if len(recs) != 256 {
			t.Fatalf("seed %d: %d records, want 256", seed, len(recs))
		}
		next := 0
		for i, r := range recs {
			if upper := r.Block >= 32; upper != (i%2 == 1) || r.Block >= 64 {
				t.Fatalf("seed %d step %d: block %d in the wrong half", seed, i, r.Block)
			}
			if i > 0 && r.Block == recs[i-1].Block+1 {
				next++
			}
		}
		if next > 16 {
			t.Errorf("seed %d: %d reads of the block after the previous one, want few", seed, next)
		}
	}
}
