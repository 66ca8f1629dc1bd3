package lab

import (
	"math"
	"testing"
)

// TestBeladyByHand: A B C A B C with two pages of tier 0. At step 2 C
// evicts B (next read at 4, A at 3); A hits at 3; at 4 B evicts A (never
// read again, C at 5); C hits at 5: 2 hits of 6. lru evicts the page
// needed next every time: no hits.
func TestBeladyByHand(t *testing.T) {
	tests := []struct {
		spec string
		want float64
	}{
		{PolicyBelady, 2.0 / 6},
		{PolicyLRU, 0},
	}
	for _, tc := range tests {
		sp, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(Config{Hierarchy: handHierarchy(2), Trace: handTrace(3, 2), Spec: sp})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.HitRatio-tc.want) > 1e-12 {
			t.Errorf("%s: hit ratio %v, want %v", tc.spec, r.HitRatio, tc.want)
		}
	}
}

// TestBeladyBoundsAblation: on every cell of the lab's ablation no
// policy's tier-0 hit ratio exceeds the cell's Bélády (furthest next use
// is not a proven bound with the traces' unequal page sizes, but it
// holds on all of them), every run carries it, and it is the same for
// every policy of a cell.
func TestBeladyBoundsAblation(t *testing.T) {
	rs, err := Ablation().Run()
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		seed         int64
		scenario, wl string
	}
	bel := map[cell]float64{}
	for _, r := range rs {
		k := cell{r.Seed, r.Scenario, r.Workload}
		if b, ok := bel[k]; ok && b != r.BeladyHitRatio {
			t.Fatalf("%v: Bélády %v and %v in one cell", k, b, r.BeladyHitRatio)
		}
		bel[k] = r.BeladyHitRatio
		if r.BeladyHitRatio <= 0 || r.HitRatio > r.BeladyHitRatio {
			t.Errorf("%v %s: hit ratio %v, Bélády %v", k, r.Policy, r.HitRatio, r.BeladyHitRatio)
		}
	}
	if len(bel) != 18 {
		t.Errorf("%d cells, want 18", len(bel))
	}
}
