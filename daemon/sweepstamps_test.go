package daemon

import (
	"testing"
	"time"

	"github.com/kvtier/kvtier/policy"
)

// TestSweepExpiresDemoted: a sweep that passes a block forgets its
// demotion stamp once it is older than the regret horizon and keeps it
// while it is within, whether the block is materialised or not, in a
// chunk of the slot directory with materialised blocks or without; a
// kept stamp is still a regret when the block is read.
func TestSweepExpiresDemoted(t *testing.T) {
	const ms = policy.Time(time.Millisecond)
	d, _ := fixtureDaemon(t, feedbackConfig)
	h := d.horizon()
	now := 10 * h
	tests := []struct {
		block       int
		at          policy.Time // when it was demoted
		materialise bool
		kept        bool
	}{
		{0, now - h, false, true},
		{1, now - h - ms, false, false},
		{1500, 0, false, false},           // a chunk with no block materialised
		{2048, now - h - ms, true, false}, // materialised
		{2049, now - h + ms, true, true},  // materialised
		{4999, now, false, true},          // the last block
		{3000, now - 2*h, false, false},   // long expired
		{3001, now - ms, false, true},     // lately
		{4096, now - h - 1000*ms, false, false},
	}
	fast := make([]bool, 5000) // every block slow: none pooled
	r := stagedPinnedRegion(t, d, 5000*4096, nil, fast)
	d.mu.Lock()
	defer d.mu.Unlock()
	for r.tracked < r.blocks.len() {
		if err := d.trackUntilLocked(r, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	r.adding = false
	for _, tc := range tests {
		if tc.materialise {
			if _, err := d.blockLocked(r, tc.block, now); err != nil {
				t.Fatal(err)
			}
		}
		r.markDemoted(tc.block, tc.at)
	}
	d.sweepLocked(now)
	for _, tc := range tests {
		if kept := r.demotedAt[tc.block] != 0; kept != tc.kept {
			t.Errorf("block %d demoted at %v, swept at %v (horizon %v): stamp kept %v, want %v",
				tc.block, tc.at, now, h, kept, tc.kept)
		}
		if tc.kept && !r.takeDemoted(tc.block, now, h) {
			t.Errorf("block %d: a kept stamp is no regret", tc.block)
		}
	}
}
