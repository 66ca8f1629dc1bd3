package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// Quality targets of the policies that go past the seed study (issue 3,
// "Go past the seed"); results/BEYOND.md reports the figures these tests
// log. They assert quality, not speed.

// seedCell is one workload x scenario cell of the seed study's grid.
type seedCell struct {
	scenario, workload string
}

// meanLatency returns the mean over the seed study's seeds of the mean
// modelled latency of spec on one cell (kvlab, cache mode, fp16, prefetch
// off), and the mean fast-tier hit ratio.
func meanLatency(t *testing.T, spec string, c seedCell, traces map[string]*Trace) (lat, hit float64) {
	t.Helper()
	h, err := NewHierarchy("kvlab", c.scenario)
	if err != nil {
		t.Fatal(err)
	}
	seeds := []int64{7, 42, 91}
	for _, seed := range seeds {
		key := fmt.Sprintf("%s/%d", c.workload, seed)
		tr, ok := traces[key]
		if !ok {
			ws, err := trace.ParseWorkload(c.workload)
			if err != nil {
				t.Fatal(err)
			}
			ws.Params.Seed = seed
			tr, err = Prepare(ws.String(), func() (trace.Reader, error) { return trace.NewWorkload(ws.Name, ws.Params) })
			if err != nil {
				t.Fatal(err)
			}
			traces[key] = tr
		}
		r, err := Run(Config{Policy: spec, Hierarchy: h, Mode: ModeCache, Quant: FP16, Seed: seed}, tr)
		if err != nil {
			t.Fatal(err)
		}
		lat += r.MeanLatencyMs / float64(len(seeds))
		hit += r.FastHitRatio / float64(len(seeds))
	}
	return lat, hit
}

// TestGoalRegretAdaptive: on every cell of the seed's grid regret_adaptive
// is never more than 1% slower than LRU in mean modelled latency, and it is
// faster than LRU on adversarial_burst.
func TestGoalRegretAdaptive(t *testing.T) {
	traces := map[string]*Trace{}
	var b strings.Builder
	for _, sc := range []string{"medium", "constrained"} {
		for _, wl := range []string{"chat_continuation:pages=80,steps=512", "periodic_reuse:pages=96,steps=640,period=11",
			"adversarial_burst:pages=112,steps=640,burst=14"} {
			c := seedCell{sc, wl}
			lru, lruHit := meanLatency(t, "lru", c, traces)
			ra, raHit := meanLatency(t, "regret_adaptive", c, traces)
			ratio := ra / lru
			fmt.Fprintf(&b, "%-12s %-48s lru %.4f ms (hit %.3f)  regret_adaptive %.4f ms (hit %.3f)  ratio %.4f\n",
				sc, wl, lru, lruHit, ra, raHit, ratio)
			if ratio > 1.01 {
				t.Errorf("%s %s: regret_adaptive %.4f ms, more than 1%% over LRU's %.4f ms", sc, wl, ra, lru)
			}
			if strings.HasPrefix(wl, "adversarial_burst") && ratio >= 1 {
				t.Errorf("%s %s: regret_adaptive %.4f ms, not faster than LRU's %.4f ms", sc, wl, ra, lru)
			}
		}
	}
	t.Logf("mean over seeds 7, 42, 91 (kvlab, cache mode, fp16, no prefetch):\n%s", b.String())
}

// TestGoalPrefixChain: on the Mooncake conversation trace in blocks mode,
// prefix_chain has a higher hit ratio than ARC and S3-FIFO with a fast tier
// of 1%, 5% and 10% of the distinct blocks.
func TestGoalPrefixChain(t *testing.T) {
	tr, err := Prepare(MooncakeSampleName, MooncakeSample(trace.MooncakeOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, share := range []float64{0.01, 0.05, 0.10} {
		n := int(share * float64(tr.Blocks()))
		rs, err := Compare(Config{Mode: ModeBlocks, CapacityBlocks: n}, []string{"prefix_chain", "arc", "s3fifo"}, tr)
		if err != nil {
			t.Fatal(err)
		}
		hit := map[string]float64{}
		for _, r := range rs {
			hit[r.Policy] = r.FastHitRatio
		}
		headroom := "-"
		if h := rs[0].Headroom; h != nil {
			headroom = fmt.Sprintf("%.1f%%", 100**h)
		}
		fmt.Fprintf(&b, "%4.0f%% = %6d blocks: prefix_chain %.4f  arc %.4f  s3fifo %.4f  lru %.4f  belady %.4f  "+
			"prefix_chain captures %s of the LRU-to-Belady headroom\n", 100*share, n, hit["prefix_chain"], hit["arc"],
			hit["s3fifo"], hit[RefLRU], hit[RefBelady], headroom)
		for _, other := range []string{"arc", "s3fifo"} {
			if hit["prefix_chain"] <= hit[other] {
				t.Errorf("capacity %d blocks: prefix_chain hit ratio %.4f, not above %s's %.4f", n,
					hit["prefix_chain"], other, hit[other])
			}
		}
	}
	t.Logf("Mooncake conversation trace, %d accesses, %d distinct blocks, blocks mode:\n%s", tr.Accesses(),
		tr.Blocks(), b.String())
}
