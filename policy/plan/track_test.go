package plan

import (
	"math"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestHeatGap: the epochs since a block's heat was updated are counted in
// 32 bits with wrap-around, so heat keeps decaying, not resetting, once
// the planner's epoch passes 2^32 (a 1 ms epoch does in 50 days).
func TestHeatGap(t *testing.T) {
	const wrap = uint64(1) << 32
	for _, tc := range []struct {
		name      string
		heatEpoch uint64
		epoch     uint64
		gap       uint32
		later     bool
	}{
		{"same epoch", 7, 7, 0, false},
		{"two later", 7, 9, 2, true},
		{"earlier", 9, 7, 0, false},
		{"across 2^32", wrap - 1, wrap + 2, 3, true},
		{"past 2^32", 3*wrap + 5, 3*wrap + 6, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gap, later := heatGap(&entry{heatEpoch: uint32(tc.heatEpoch)}, tc.epoch)
			if later != tc.later || (later && gap != tc.gap) {
				t.Errorf("heatGap = %d, %v; want %d, %v", gap, later, tc.gap, tc.later)
			}
		})
	}
	p := &Planner{cfg: Config{Decay: 0.5}}
	e := &entry{heat: 8, heatEpoch: uint32(wrap - 1)}
	if got := p.heatAt(e, wrap+1); got != 2 {
		t.Errorf("heat two epochs later, across 2^32: %v, want 2", got)
	}
}

// TestHeatDecaysPastEpoch2to31: a block tracked once the planner's epoch
// is past 2^31 has its heat decayed like any other (its heat epoch starts
// at the planner's, not at 0, which would read as an epoch in the future).
func TestHeatDecaysPastEpoch2to31(t *testing.T) {
	p, err := New(Config{Policy: "lru", Decay: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	p.epoch = 3_000_000_000
	b := &policy.Block{ID: 1, Meta: policy.Meta{Size: 4096}}
	if err := p.Track(b, false, 0); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if err := p.Observe(1, Observation{Count: 8}, 0); err != nil {
			t.Fatal(err)
		}
		p.epoch++
	}
	e, _ := p.lookup(1)
	p.heatNow(e)
	// 8 x (1/2 + 1/4 + ... + 1/32): each epoch's count halves at each later epoch.
	if want := 8 * (1 - 1.0/32); math.Abs(e.heat-want) > 1e-9 {
		t.Errorf("heat after 5 epochs of 8 = %v, want %v (decayed)", e.heat, want)
	}
}
