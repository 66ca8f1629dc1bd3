package plan

import (
	"errors"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// untrack untracks ids, failing the test on error.
func (h *harness) untrack(ids ...policy.BlockID) {
	h.t.Helper()
	for _, id := range ids {
		if err := h.p.Untrack(id); err != nil {
			h.t.Fatal(err)
		}
	}
}

// wantStats checks the planner's tracked blocks and byte counts.
func (h *harness) wantStats(tracked int, fast, in, out int64) {
	h.t.Helper()
	s := h.p.Stats()
	if s.Tracked != tracked || s.FastBytes != fast || s.PendingIn != in || s.PendingOut != out {
		h.t.Errorf("tracked %d, fast %d, pending in %d out %d; want %d, %d, %d, %d",
			s.Tracked, s.FastBytes, s.PendingIn, s.PendingOut, tracked, fast, in, out)
	}
}

// A block sampled and then untracked in the same epoch is not a promotion
// candidate: the Mooncake replay with decode blocks freed planned such a
// block and Done failed with "unknown block". Capacity 200, fast blocks 1
// and 2, hot slow blocks 3 and 4; 3 is freed before the plan, so only 4 is
// promoted and only 1 (least recently used) makes room. An ID tracked again
// after its untrack is one block: the new one, listed once.
func TestUntrackedBeforePlan(t *testing.T) {
	for _, tc := range []struct {
		name             string
		retrack          bool // track 3 again (slow) and access it once
		demote, promote  []policy.BlockID
		shortage         int64
		tracked          int
		fastAfterPromote []policy.BlockID
	}{
		{name: "freed", demote: []policy.BlockID{1}, promote: []policy.BlockID{4}, shortage: 100, tracked: 3,
			fastAfterPromote: []policy.BlockID{2, 4}},
		// 3 and 4 are equally hot; 3 ranks first by ID.
		{name: "retracked", retrack: true, demote: []policy.BlockID{1, 2}, promote: []policy.BlockID{3, 4},
			shortage: 200, tracked: 4, fastAfterPromote: []policy.BlockID{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
			h.track(1, 0, 100, true)
			h.track(2, 0, 100, true)
			h.track(3, 0, 100, false)
			h.track(4, 0, 100, false)
			h.access(3, 4)
			h.untrack(3)
			if tc.retrack {
				h.track(3, 0, 100, false)
				h.access(3)
			}
			pl := h.plan()
			h.want(pl, tc.demote, tc.promote)
			if pl.Shortage != tc.shortage || pl.Deferred != 0 {
				t.Errorf("shortage %d deferred %d, want %d and 0", pl.Shortage, pl.Deferred, tc.shortage)
			}
			h.doneAll(pl)
			h.wantStats(tc.tracked, 200, 0, 0)
			for _, id := range tc.fastAfterPromote {
				h.wantFast(id, true)
			}
		})
	}
}

// A block untracked between Plan and Done (the daemon drops the regions of
// exited processes while the mover runs) leaves the pending counts at
// once; Done for its move is a no-op that returns ErrUntracked, once.
// Capacity 200: the plan demotes 1 and 2 and promotes 3 and 4; then 2 (a
// demotion) and 3 (a promotion) are untracked.
func TestUntrackedBetweenPlanAndDone(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, false)
	h.track(4, 0, 100, false)
	h.access(3, 4)
	pl := h.plan()
	h.want(pl, []policy.BlockID{1, 2}, []policy.BlockID{3, 4})
	h.wantStats(4, 200, 200, 200)
	h.untrack(2, 3)
	// Fast: 1 (its demotion pending); pending: 4 in, 1 out.
	h.wantStats(2, 100, 100, 100)
	if h.p.Pending(2) || h.p.Pending(3) {
		t.Errorf("untracked blocks still pending")
	}
	steps := []struct {
		id           policy.BlockID
		promoted, ok bool
		want         error // nil for success
	}{
		{3, false, true, ErrNotPending}, // the wrong direction stays an error
		{1, false, true, nil},
		{2, false, true, ErrUntracked},
		{3, true, true, ErrUntracked},
		{4, true, true, nil},
		{2, false, true, ErrUnknownBlock}, // recognised once
		{3, true, false, ErrUnknownBlock},
	}
	for _, s := range steps {
		err := h.p.Done(s.id, s.promoted, s.ok, h.now)
		if s.want == nil && err != nil || s.want != nil && !errors.Is(err, s.want) {
			t.Errorf("Done(%d, promoted %v): %v, want %v", s.id, s.promoted, err, s.want)
		}
		if errors.Is(err, ErrUntracked) && errors.Is(err, ErrUnknownBlock) {
			t.Errorf("Done(%d): ErrUntracked must not match ErrUnknownBlock", s.id)
		}
	}
	h.wantStats(2, 100, 0, 0)
	h.wantFast(1, false)
	h.wantFast(4, true)
	if _, tracked := h.p.Fast(2); tracked {
		t.Errorf("block 2 tracked again by Done")
	}
	// The room the untracked block held is free: 1 comes back without a
	// demotion.
	h.access(1)
	pl = h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{1})
	h.doneAll(pl)
	h.wantStats(2, 200, 0, 0)
}

// Done recognises an abandoned move for abandonHorizon plans, and not once
// the ID is tracked again (a new block, which has no planned move).
func TestAbandonedMoveForgotten(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plans   int
		retrack bool
		want    error
	}{
		{"next plan", 1, false, ErrUntracked},
		{"last plan of horizon", abandonHorizon - 1, false, ErrUntracked},
		{"expired", abandonHorizon, false, ErrUnknownBlock},
		{"retracked", 0, true, ErrNotPending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 100}})
			h.track(1, 0, 100, false)
			h.access(1)
			h.want(h.plan(), []policy.BlockID{}, []policy.BlockID{1})
			h.untrack(1)
			for range tc.plans {
				h.plan()
			}
			if tc.retrack {
				h.track(1, 0, 100, false)
			}
			if err := h.p.Done(1, true, true, h.now); !errors.Is(err, tc.want) {
				t.Errorf("Done: %v, want %v", err, tc.want)
			}
			if len(h.p.abandoned) != 0 {
				t.Errorf("%d abandoned moves still recorded", len(h.p.abandoned))
			}
		})
	}
}
