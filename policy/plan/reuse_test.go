package plan

import (
	"strings"
	"testing"
)

// TestReuse: with Config.Reuse, a slow block is promoted only once it was
// sampled in two different epochs at most Reuse epochs apart. A block read
// once, like the slots of a KV pool a trace sweeps through, stays where it
// is; before the rule every such read promoted the block and demoted
// another, for nothing. Reuse 0 keeps the old rule: one epoch's accesses.
func TestReuse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reuse int
		seen  []bool // per epoch: block 3 sampled in it
		want  []bool // per epoch: block 3 promoted by its plan
	}{
		{name: "once: never", reuse: 8, seen: []bool{true, false, false}, want: []bool{false, false, false}},
		{name: "two epochs in a row", reuse: 8, seen: []bool{true, true}, want: []bool{false, true}},
		{name: "within the window", reuse: 3, seen: []bool{true, false, false, true}, want: []bool{false, false, false, true}},
		{name: "beyond the window", reuse: 2, seen: []bool{true, false, false, true, true}, want: []bool{false, false, false, false, true}},
		{name: "rule off: the first epoch", reuse: 0, seen: []bool{true}, want: []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 300}, Reuse: tc.reuse})
			h.track(1, 0, 100, true)
			h.track(2, 0, 100, true)
			h.track(3, 0, 100, false)
			for i, seen := range tc.seen {
				if seen {
					h.access(3, 3)
				}
				pl := h.plan()
				got := len(pl.Promote) == 1 && pl.Promote[0].Block.ID == 3
				if got != tc.want[i] {
					t.Fatalf("epoch %d: promoted %v (plan promotes %v), want %v", i+1, got, ids(pl.Promote), tc.want[i])
				}
				h.doneAll(pl)
			}
		})
	}
}

// TestReuseBad: Reuse out of range is refused, naming the field.
func TestReuseBad(t *testing.T) {
	for _, r := range []int{-1, maxReuse + 1} {
		_, err := New(Config{Policy: "lru", Reuse: r})
		if err == nil || !strings.Contains(err.Error(), "reuse") {
			t.Errorf("Reuse %d: error %v, want one naming reuse", r, err)
		}
	}
}
