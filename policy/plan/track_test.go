package plan

import "testing"

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
