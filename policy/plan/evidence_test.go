package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestNoEvidenceNoMove: a block leaves the fast tier to make room only for
// a block the samplers saw more of (by PromoteMin); an operator's budget
// and pinned blocks move without such evidence. Before the rule, a slow
// block seen once displaced fast blocks seen as often or more: with
// region-wide DAMON counts every block was "seen", and the daemon moved
// hot blocks out for cold ones.
func TestNoEvidenceNoMove(t *testing.T) {
	type acc struct {
		id policy.BlockID
		n  int
	}
	for _, tc := range []struct {
		name            string
		fastBytes       int64
		slowPinned      bool
		accesses        []acc
		demote, promote []policy.BlockID
		deferredAtLeast int
	}{
		{name: "nothing sampled: nothing moves", fastBytes: 200,
			demote: []policy.BlockID{}, promote: []policy.BlockID{}},
		{name: "as much evidence as the victims: no swap", fastBytes: 200,
			accesses: []acc{{1, 2}, {2, 1}, {3, 1}},
			demote:   []policy.BlockID{}, promote: []policy.BlockID{}, deferredAtLeast: 1},
		{name: "less evidence than the victim: no swap", fastBytes: 200,
			accesses: []acc{{1, 5}, {2, 5}, {3, 2}},
			demote:   []policy.BlockID{}, promote: []policy.BlockID{}, deferredAtLeast: 1},
		{name: "more evidence than the victim by PromoteMin: swap", fastBytes: 200,
			accesses: []acc{{2, 1}, {1, 5}, {3, 2}}, // lru's victim: 2
			demote:   []policy.BlockID{2}, promote: []policy.BlockID{3}},
		{name: "free room: promoted without a victim", fastBytes: 300,
			accesses: []acc{{1, 5}, {2, 5}, {3, 1}},
			demote:   []policy.BlockID{}, promote: []policy.BlockID{3}},
		{name: "over budget: the budget demotes without evidence", fastBytes: 100,
			demote: []policy.BlockID{1}, promote: []policy.BlockID{}},
		{name: "pinned: room is made whatever the heat", fastBytes: 200, slowPinned: true,
			accesses: []acc{{1, 5}, {2, 5}},
			demote:   []policy.BlockID{1}, promote: []policy.BlockID{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: tc.fastBytes}})
			h.track(1, 0, 100, true)
			h.track(2, 0, 100, true)
			if tc.slowPinned {
				h.track(3, 0, 100, false, pinned)
			} else {
				h.track(3, 0, 100, false)
			}
			for _, a := range tc.accesses {
				for range a.n {
					h.access(a.id)
				}
			}
			pl := h.plan()
			h.want(pl, tc.demote, tc.promote)
			if pl.Deferred < tc.deferredAtLeast {
				t.Errorf("deferred %d, want at least %d", pl.Deferred, tc.deferredAtLeast)
			}
		})
	}
}

// TestFastLimit: the fast node's room caps the budget. Promotions fill only
// the room there is; when the node fills up (the limit drops below what
// the tier holds), the tier gives room back as an over-budget tier does,
// coldest first; the limit never raises an operator's budget.
func TestFastLimit(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 0}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, false)
	h.track(4, 0, 100, false)
	h.p.SetFastLimit(300) // room for one more block: 4 takes it, 3 displaces 2
	h.access(1, 3, 3, 4, 4, 4)
	pl := h.plan()
	h.want(pl, []policy.BlockID{2}, []policy.BlockID{4, 3})
	h.doneAll(pl)
	if c := h.p.Capacity(); c != 300 {
		t.Errorf("capacity %d, want 300", c)
	}
	h.p.SetFastLimit(200) // something else took the node's memory
	h.want(h.plan(), []policy.BlockID{1}, []policy.BlockID{})

	h2 := newHarness(t, Config{Budget: Budget{FastBytes: 100}})
	h2.p.SetFastLimit(1000)
	if c := h2.p.Capacity(); c != 100 {
		t.Errorf("capacity %d with budget 100 and limit 1000, want 100", c)
	}
	h2.p.SetFastLimit(-5)
	if c := h2.p.Capacity(); c != 1 {
		t.Errorf("capacity %d with a negative limit, want 1 (no room)", c)
	}
	h2.p.SetFastLimit(0)
	if c := h2.p.Capacity(); c != 100 {
		t.Errorf("capacity %d after the limit was removed, want 100", c)
	}
}
