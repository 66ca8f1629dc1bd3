package plan

import (
	"errors"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestSetTier: a block found in the other tier is accounted there: a
// pinned block found slow is promoted by the next plan, an unpinned one
// found slow is no victim any more, a block found fast counts against the
// capacity (and is a victim), a pending block is left to its Done.
func TestSetTier(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300}})
	h.track(1, 0, 100, true, pinned)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, true)
	h.track(4, 0, 100, false)
	for _, c := range []struct {
		id   policy.BlockID
		fast bool
		want bool
	}{{1, false, true}, {2, false, true}, {2, false, false}, {4, true, true}} {
		if got, err := h.p.SetTier(c.id, c.fast, h.now); err != nil || got != c.want {
			t.Fatalf("SetTier(%d, %v) = %v, %v; want %v", c.id, c.fast, got, err, c.want)
		}
	}
	h.wantFast(1, false)
	h.wantFast(2, false)
	h.wantFast(4, true)
	if fb := h.p.FastBytes(); fb != 200 {
		t.Errorf("fast bytes %d, want 200 (blocks 3 and 4)", fb)
	}
	// Pinned block 1 comes back; the room is made from 3 or 4 (2 is slow).
	pl := h.plan()
	if len(pl.Promote) != 1 || pl.Promote[0].Block.ID != 1 {
		t.Fatalf("plan promotes %v, want pinned block 1", ids(pl.Promote))
	}
	for _, m := range pl.Demote {
		if m.Block.ID == 2 || m.Block.ID == 1 {
			t.Errorf("plan demotes block %d, which is slow or pinned", m.Block.ID)
		}
	}
	if got, err := h.p.SetTier(1, true, h.now); err != nil || got {
		t.Errorf("SetTier of a block with a pending promotion = %v, %v; want false", got, err)
	}
	if _, err := h.p.SetTier(9, true, h.now); !errors.Is(err, ErrUnknownBlock) {
		t.Errorf("SetTier of an unknown block: %v", err)
	}
}

// TestHold: with demotions held no block is demoted, neither for room nor
// for an overage, and promotions go only into free room; with promotions
// held only the overage is shed.
func TestHold(t *testing.T) {
	tests := []struct {
		name          string
		hold          Hold
		demote, promo []policy.BlockID
		deferred      int
	}{
		{"none", Hold{}, []policy.BlockID{1, 2, 3}, []policy.BlockID{4, 5}, 0},
		{"demotions", Hold{Demote: true}, []policy.BlockID{}, []policy.BlockID{}, 2},
		{"promotions", Hold{Promote: true}, []policy.BlockID{1}, []policy.BlockID{}, 2},
		{"both", Hold{Promote: true, Demote: true}, []policy.BlockID{}, []policy.BlockID{}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Capacity 200, 300 fast: 100 over. Blocks 4 and 5 are hot.
			h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
			for id := policy.BlockID(1); id <= 5; id++ {
				h.track(id, 0, 100, id <= 3)
			}
			h.access(3, 4, 4, 5, 5)
			h.p.SetHold(tt.hold)
			pl := h.plan()
			h.want(pl, tt.demote, tt.promo)
			if pl.Deferred != tt.deferred {
				t.Errorf("deferred %d, want %d", pl.Deferred, tt.deferred)
			}
		})
	}
}

// TestHoldPromotesIntoFreeRoom: with demotions held, a promotion that
// fits the free room still happens.
func TestHoldPromotesIntoFreeRoom(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, false)
	h.track(3, 0, 100, false)
	h.track(4, 0, 100, false)
	h.access(2, 2, 3, 3, 4)
	h.p.SetHold(Hold{Demote: true})
	pl := h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{2, 3})
	if pl.Deferred != 1 {
		t.Errorf("deferred %d, want 1 (block 4 needs a victim)", pl.Deferred)
	}
}

// TestDropTenant: a tenant without blocks is forgotten; one with blocks is
// refused; a new block of a dropped tenant starts it afresh.
func TestDropTenant(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300}})
	h.track(1, 5, 100, true)
	h.track(2, 6, 100, true)
	if err := h.p.DropTenant(5); !errors.Is(err, ErrTenantInUse) {
		t.Fatalf("DropTenant of a tenant with a block: %v, want ErrTenantInUse", err)
	}
	h.untrack(1)
	if err := h.p.DropTenant(5); err != nil {
		t.Fatal(err)
	}
	if err := h.p.DropTenant(99); err != nil {
		t.Errorf("DropTenant of an unknown tenant: %v", err)
	}
	s := h.p.Stats()
	if len(s.Tenants) != 1 || s.Tenants[0].Tenant != 6 || s.FastBytes != 100 {
		t.Errorf("stats after the drop: %+v", s)
	}
	h.track(3, 5, 100, false)
	h.access(3)
	h.want(h.plan(), []policy.BlockID{}, []policy.BlockID{3})
}
