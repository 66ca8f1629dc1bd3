package plan

import (
	"errors"
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
					h.access(3) // one window
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

// TestReuseWindows: evidence of reuse within one epoch (two observation
// windows of one source: two DAMON aggregation intervals, two hints) and
// across epochs counts per source. A single read that a sampler reports
// in one epoch and the engine hints in the next is one read; before
// sources were told apart, it promoted the block (the head-to-head's
// kvtier-hints run moved 13x the pages of kvtier-auto in its trace replay).
func TestReuseWindows(t *testing.T) {
	sampled := func(w uint32) Observation { return Observation{Count: 1, Windows: w} }
	hint := Observation{Count: 1, Source: SourceHint}
	for _, tc := range []struct {
		name string
		seen [][]Observation // per epoch: block 3's observations
		want []bool          // per epoch: block 3 promoted by its plan
	}{
		{name: "one window", seen: [][]Observation{{sampled(1)}}, want: []bool{false}},
		{name: "two windows in one report", seen: [][]Observation{{sampled(2)}}, want: []bool{true}},
		{name: "two reports in one epoch", seen: [][]Observation{{sampled(1), sampled(1)}}, want: []bool{true}},
		{name: "two hints in one epoch", seen: [][]Observation{{hint, hint}}, want: []bool{true}},
		{name: "sampled and hinted once each", seen: [][]Observation{{sampled(1), hint}}, want: []bool{false}},
		{name: "sampled, then hinted", seen: [][]Observation{{sampled(1)}, {hint}}, want: []bool{false, false}},
		{name: "hinted in two epochs", seen: [][]Observation{{hint}, {hint}}, want: []bool{false, true}},
		{name: "sampled in two epochs, hinted between", seen: [][]Observation{{sampled(1)}, {hint}, {sampled(1)}},
			want: []bool{false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 300}, Reuse: 8})
			h.track(1, 0, 100, true)
			h.track(2, 0, 100, true)
			h.track(3, 0, 100, false)
			for i, obs := range tc.seen {
				for _, o := range obs {
					h.now++
					if err := h.p.Observe(3, o, h.now); err != nil {
						t.Fatal(err)
					}
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

// TestObserveBadSource: an unknown source is an error naming it.
func TestObserveBadSource(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300}})
	h.track(1, 0, 100, false)
	err := h.p.Observe(1, Observation{Count: 1, Source: nSources}, 1)
	if !errors.Is(err, ErrBadSource) {
		t.Fatalf("Observe with source %d: %v, want ErrBadSource", nSources, err)
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
