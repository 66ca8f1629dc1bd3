package sim

import (
	"math"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// TestMatchesCachesim replays testdata/zipf-6k.csv (6,000 requests,
// Zipf(1.0) over 1,500 unit-size objects, written by internal/simbench) in
// blocks mode and compares each miss ratio with the one libCacheSim's
// cachesim printed (four decimals) for
//
//	cachesim zipf-6k.csv csv lru,fifo,arc,sieve,lfu N -t "time-col=1,obj-id-col=2,obj-size-col=4,has-header=true"
func TestMatchesCachesim(t *testing.T) {
	open := func() (trace.Reader, error) { return trace.Open("testdata/zipf-6k.csv") }
	tr, err := Prepare("zipf-6k.csv", open)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		policy string
		miss   [3]float64 // at 50, 150 and 400 objects
	}{
		{"lru", [3]float64{0.5837, 0.4108, 0.2613}},
		{"fifo", [3]float64{0.6377, 0.4655, 0.3035}},
		{"arc", [3]float64{0.4870, 0.3532, 0.2463}},
		{"sieve", [3]float64{0.4805, 0.3575, 0.2438}},
		{"lfu", [3]float64{0.4813, 0.3575, 0.2438}},
	}
	for _, tt := range tests {
		for i, capacity := range []int{50, 150, 400} {
			r, err := Run(Config{Policy: tt.policy, Mode: ModeBlocks, CapacityBlocks: capacity}, tr)
			if err != nil {
				t.Fatal(err)
			}
			if miss := 1 - r.FastHitRatio; math.Abs(miss-tt.miss[i]) > 0.00005 {
				t.Errorf("%s at %d objects: miss ratio %.4f, cachesim %.4f", tt.policy, capacity, miss, tt.miss[i])
			}
			cfg := Config{Mode: ModeBlocks, CapacityBlocks: capacity}
			if !Streamable(cfg, []string{tt.policy}, References{}) {
				continue
			}
			rs, err := CompareStream(cfg, []string{tt.policy}, References{}, "zipf-6k.csv", open)
			if err != nil {
				t.Fatal(err)
			}
			if miss := 1 - rs[0].FastHitRatio; math.Abs(miss-tt.miss[i]) > 0.00005 {
				t.Errorf("%s at %d objects, streamed: miss ratio %.4f, cachesim %.4f", tt.policy, capacity, miss, tt.miss[i])
			}
		}
	}
}
