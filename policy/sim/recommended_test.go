package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// recommendedBaselines are the policies issue 14 asks the recommended
// policy to match or beat on every real KV trace.
var recommendedBaselines = []string{"arc", "s3fifo", "cacheus", "lecar", "sieve", "wtinylfu"}

// TestGoalKVAdaptive: on the Mooncake conversation trace, prompt blocks
// only (as libCacheSim and the papers count), blocks mode, kv_adaptive's
// hit ratio is at least the best of ARC, S3-FIFO, CACHEUS, LeCaR, SIEVE and
// W-TinyLFU and at least LRU's with a fast tier of 1%, 5% and 10% of the
// distinct blocks. It logs the share of the LRU-to-Bélády headroom it
// captures (issue 14 asks 35% on average; results/RECOMMENDED.md reports
// how far it is).
func TestGoalKVAdaptive(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the Mooncake trace 27 times")
	}
	tr, err := Prepare(MooncakeSampleName, MooncakeSample(trace.MooncakeOptions{NoDecode: true}))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var sum float64
	for _, share := range []float64{0.01, 0.05, 0.10} {
		n := int(share * float64(tr.Blocks()))
		rs, err := Compare(Config{Mode: ModeBlocks, CapacityBlocks: n},
			append([]string{"kv_adaptive"}, recommendedBaselines...), tr)
		if err != nil {
			t.Fatal(err)
		}
		hit := map[string]float64{}
		for _, r := range rs {
			hit[r.Policy] = r.FastHitRatio
		}
		best := recommendedBaselines[0]
		for _, p := range recommendedBaselines {
			if hit[p] > hit[best] {
				best = p
			}
		}
		h := 0.0
		if rs[0].Headroom != nil {
			h = *rs[0].Headroom
		}
		sum += h
		fmt.Fprintf(&b, "%4.0f%% = %6d blocks: kv_adaptive %.4f  best baseline %s %.4f  lru %.4f  belady %.4f  "+
			"headroom captured %.1f%%\n", 100*share, n, hit["kv_adaptive"], best, hit[best], hit[RefLRU],
			hit[RefBelady], 100*h)
		for _, other := range []string{best, RefLRU} {
			if hit["kv_adaptive"] < hit[other] {
				t.Errorf("capacity %d blocks: kv_adaptive hit ratio %.4f, below %s's %.4f", n, hit["kv_adaptive"],
					other, hit[other])
			}
		}
	}
	t.Logf("Mooncake conversation trace, prompt blocks only, %d accesses, %d distinct blocks, blocks mode:\n%s"+
		"mean share of the LRU-to-Belady headroom: %.1f%%", tr.Accesses(), tr.Blocks(), b.String(), 100*sum/3)
}
