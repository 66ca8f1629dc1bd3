package plan

import (
	"errors"
	"reflect"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

func TestPlanCapacityLRU(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, true)
	h.track(4, 0, 100, false)
	h.track(5, 0, 100, false)
	// LRU order now 3, 2, 1; block 4 is hotter than 5, and both are
	// hotter than 3 and 2 by at least PromoteMin (no evidence, no move).
	h.access(2, 1, 5, 5, 4, 4, 4)
	pl := h.plan()
	h.want(pl, []policy.BlockID{3, 2}, []policy.BlockID{4, 5})
	if pl.Shortage != 200 || pl.Deferred != 0 {
		t.Errorf("shortage %d deferred %d, want 200 and 0", pl.Shortage, pl.Deferred)
	}
	h.doneAll(pl)
	for id, fast := range map[policy.BlockID]bool{1: true, 2: false, 3: false, 4: true, 5: true} {
		h.wantFast(id, fast)
	}
	if s := h.p.Stats(); s.FastBytes != 300 || s.PendingIn != 0 || s.PendingOut != 0 {
		t.Errorf("stats %+v", s)
	}
	// Nothing sampled: nothing moves.
	h.want(h.plan(), []policy.BlockID{}, []policy.BlockID{})
}

// Tenant 1 is at its quota of 200 while the tier has room: its own coldest
// block makes the room and tenant 2 is untouched.
func TestPlanQuotaShortage(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 1000, TenantBytes: map[uint32]int64{1: 200}}})
	h.track(10, 1, 100, true)
	h.track(11, 1, 100, true)
	h.track(20, 2, 100, true)
	h.track(12, 1, 100, false)
	h.access(10, 20, 12)
	pl := h.plan()
	h.want(pl, []policy.BlockID{11}, []policy.BlockID{12})
	if pl.Demote[0].Reason != ReasonQuota || pl.Shortage != 100 || len(pl.Events) != 0 {
		t.Errorf("reason %v shortage %d events %v", pl.Demote[0].Reason, pl.Shortage, pl.Events)
	}
	h.doneAll(pl)
	// Quota shrinks to 100: tenant 1 gives back one more block by itself.
	cfg := h.p.Config()
	cfg.Budget.TenantBytes = map[uint32]int64{1: 100}
	if err := h.p.Reconfigure(cfg, h.now); err != nil {
		t.Fatal(err)
	}
	pl = h.plan()
	h.want(pl, []policy.BlockID{10}, []policy.BlockID{})
}

// Capacity 400 is full: tenant 1 needs 200 bytes and has only one block of
// its own; the other 100 come from another tenant, unshared blocks first,
// and that tenant gets an event.
func TestPlanCrossTenantOrder(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 400}})
	h.track(1, 1, 100, true)
	h.track(21, 2, 100, true, refs(3))
	h.track(22, 2, 100, true, refs(1))
	h.track(31, 3, 100, true, refs(2))
	h.track(2, 1, 100, false)
	h.track(3, 1, 100, false)
	h.access(22, 21, 31, 2, 2, 3, 3) // block 22 is not the coldest; it is unshared
	pl := h.plan()
	h.want(pl, []policy.BlockID{1, 22}, []policy.BlockID{2, 3})
	if pl.Demote[0].Reason != ReasonCapacity || pl.Demote[1].Reason != ReasonCrossTenant {
		t.Errorf("reasons %v %v", pl.Demote[0].Reason, pl.Demote[1].Reason)
	}
	want := []Event{{Tenant: 2, Requester: 1, Blocks: 1, Bytes: 100}}
	if !reflect.DeepEqual(pl.Events, want) {
		t.Errorf("events %+v, want %+v", pl.Events, want)
	}
	h.doneAll(pl)
	// Tenant 1 needs 100 more: no own block left (2 and 3 are in cooldown 0,
	// so they may go: they are its own coldest).
	h.track(4, 1, 100, false)
	h.access(4)
	pl = h.plan()
	h.want(pl, []policy.BlockID{2}, []policy.BlockID{4})
}

// With no own block at all, the next sharing level is taken: refcount 2
// before refcount 3.
func TestPlanCrossTenantRefcount(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(21, 2, 100, true, refs(3))
	h.track(31, 3, 100, true, refs(2))
	h.track(1, 1, 100, false)
	h.access(31, 1, 1)
	pl := h.plan()
	h.want(pl, []policy.BlockID{31}, []policy.BlockID{1})
	if len(pl.Events) != 1 || pl.Events[0].Tenant != 3 {
		t.Errorf("events %+v", pl.Events)
	}
}

// A pinned block in the slow tier is promoted first without any access,
// and a pinned fast block is never a victim.
func TestPlanPinned(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(1, 0, 100, true, pinned)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, false, pinned)
	h.track(4, 0, 100, false)
	h.access(4, 4, 4)
	pl := h.plan()
	// Only one victim exists (block 2), so the hot block 4 is deferred.
	h.want(pl, []policy.BlockID{2}, []policy.BlockID{3})
	if pl.Promote[0].Reason != ReasonPinned || pl.Deferred != 1 {
		t.Errorf("reason %v deferred %d", pl.Promote[0].Reason, pl.Deferred)
	}
	h.doneAll(pl)
	h.access(4)
	h.want(h.plan(), []policy.BlockID{}, []policy.BlockID{})
}

func TestPlanBudgetCaps(t *testing.T) {
	tests := []struct {
		name     string
		budget   Budget
		demote   []policy.BlockID
		promote  []policy.BlockID
		deferred int
	}{
		{"unlimited", Budget{}, []policy.BlockID{1, 2, 3, 4}, []policy.BlockID{5, 6, 7, 8}, 0},
		// Each promotion needs one demotion: 2 moves each.
		{"blocks", Budget{MoveBlocks: 5}, []policy.BlockID{1, 2}, []policy.BlockID{5, 6}, 2},
		{"bytes", Budget{MoveBytes: 600}, []policy.BlockID{1, 2, 3}, []policy.BlockID{5, 6, 7}, 1},
		// 100-byte blocks are one 4 KiB page each at the default size.
		{"pages", Budget{MovePages: 2}, []policy.BlockID{1}, []policy.BlockID{5}, 3},
		{"page size", Budget{MovePages: 4, PageSize: 64}, []policy.BlockID{1}, []policy.BlockID{5}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.budget
			b.FastBytes = 400
			h := newHarness(t, Config{Budget: b})
			for id := policy.BlockID(1); id <= 8; id++ {
				h.track(id, 0, 100, id <= 4)
			}
			h.access(5, 5, 5, 5, 6, 6, 6, 7, 7, 8)
			pl := h.plan()
			h.want(pl, tt.demote, tt.promote)
			if pl.Deferred != tt.deferred {
				t.Errorf("deferred %d, want %d", pl.Deferred, tt.deferred)
			}
		})
	}
}

// The mover fails one demotion and one promotion: the failed demotion is a
// policy resident again (and the next victim), the failed promotion is
// still slow and a candidate again when sampled.
func TestPlanPartialFailure(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, false)
	h.track(4, 0, 100, false)
	h.access(3, 3, 4)
	pl := h.plan()
	h.want(pl, []policy.BlockID{1, 2}, []policy.BlockID{3, 4})
	if err := h.p.Done(1, true, true, h.now); !errors.Is(err, ErrNotPending) {
		t.Errorf("done in the wrong direction: %v, want ErrNotPending", err)
	}
	steps := []struct {
		id           policy.BlockID
		promoted, ok bool
	}{{1, false, true}, {2, false, false}, {3, true, true}, {4, true, false}}
	for _, s := range steps {
		if err := h.p.Done(s.id, s.promoted, s.ok, h.now); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.p.Done(1, false, true, h.now); !errors.Is(err, ErrNotPending) {
		t.Errorf("second done: %v, want ErrNotPending", err)
	}
	for id, fast := range map[policy.BlockID]bool{1: false, 2: true, 3: true, 4: false} {
		h.wantFast(id, fast)
	}
	if s := h.p.Stats(); s.FastBytes != 200 || s.PendingIn != 0 || s.PendingOut != 0 {
		t.Errorf("stats %+v", s)
	}
	h.access(4)
	pl = h.plan()
	// Block 2 was re-admitted after block 3, so it is the LRU victim.
	h.want(pl, []policy.BlockID{2}, []policy.BlockID{4})
}

// A plan whose moves are never reported keeps them pending: the blocks are
// neither candidates nor victims, and capacity counts them.
func TestPlanPendingCarriesOver(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 100}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, false)
	h.track(3, 0, 100, false)
	h.access(2)
	h.want(h.plan(), []policy.BlockID{1}, []policy.BlockID{2})
	h.access(3, 2)
	pl := h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{})
	if pl.Deferred != 1 {
		t.Errorf("deferred %d, want 1", pl.Deferred)
	}
	if err := h.p.Untrack(2); err != nil {
		t.Fatal(err)
	}
	if s := h.p.Stats(); s.PendingIn != 0 || s.PendingOut != 100 {
		t.Errorf("stats %+v", s)
	}
}

func TestPlanHysteresisAndClasses(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 100}, Cooldown: 50, PromoteMin: 2})
	h.track(1, 0, 100, false)
	h.track(2, 0, 100, false, func(m *policy.Meta) { m.Class = policy.ClassThinkComplete })
	h.access(1, 2, 2, 2)
	pl := h.plan() // block 2's class forbids promotion; block 1 is too cold
	h.want(pl, []policy.BlockID{}, []policy.BlockID{})
	h.access(1, 1)
	pl = h.plan()
	h.want(pl, []policy.BlockID{}, []policy.BlockID{1})
	h.doneAll(pl)
	h.track(3, 0, 100, false)
	h.access(3, 3, 3)
	pl = h.plan() // block 1 moved less than 50 ago: it stays
	h.want(pl, []policy.BlockID{}, []policy.BlockID{})
	h.now += 50
	h.access(3, 3)
	pl = h.plan()
	h.want(pl, []policy.BlockID{1}, []policy.BlockID{3})
}

// Low priority leaves first even when it was used more recently.
func TestPlanPriority(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true, lowPrio)
	h.track(3, 0, 100, false)
	h.access(1, 2, 3, 3)
	h.want(h.plan(), []policy.BlockID{2}, []policy.BlockID{3})
}

func TestReconfigureKeepsState(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 200}})
	h.track(1, 0, 100, true)
	h.track(2, 0, 100, true)
	h.track(3, 0, 100, false)
	h.access(2, 1)
	before := h.p.Stats()
	bad := h.p.Config()
	bad.Policy = "no_such_policy"
	if err := h.p.Reconfigure(bad, h.now); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("bad reconfigure: %v, want ErrBadConfig", err)
	}
	cfg := h.p.Config()
	cfg.Policy = "sieve"
	if err := h.p.Reconfigure(cfg, h.now); err != nil {
		t.Fatal(err)
	}
	if after := h.p.Stats(); !reflect.DeepEqual(before, after) {
		t.Errorf("stats changed: %+v -> %+v", before, after)
	}
	h.access(3, 3)
	// SIEVE starts from the re-admission order (block 2 oldest access).
	h.want(h.plan(), []policy.BlockID{2}, []policy.BlockID{3})
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"policy", Config{Policy: "nope"}},
		{"param", Config{Policy: "s3fifo:small=2"}},
		{"decay", Config{Policy: "lru", Decay: 1}},
		{"quota", Config{Policy: "lru", Budget: Budget{TenantBytes: map[uint32]int64{3: -1}}}},
		{"moves", Config{Policy: "lru", Budget: Budget{MoveBlocks: -1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); !errors.Is(err, ErrBadConfig) {
				t.Errorf("New: %v, want ErrBadConfig", err)
			}
		})
	}
}

func TestTrackErrors(t *testing.T) {
	h := newHarness(t, Config{})
	h.track(1, 0, 100, true)
	if err := h.p.Track(h.blocks[1], true, 0); !errors.Is(err, ErrTracked) {
		t.Errorf("Track twice: %v", err)
	}
	for name, err := range map[string]error{
		"access":  h.p.Access(9, 1, 0),
		"done":    h.p.Done(9, true, true, 0),
		"untrack": h.p.Untrack(9),
		"update":  h.p.Update(9, policy.Meta{}, 0),
	} {
		if !errors.Is(err, ErrUnknownBlock) {
			t.Errorf("%s of unknown block: %v", name, err)
		}
	}
}

// Update moves a block between tenants and pins it.
func TestUpdate(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 100, TenantBytes: map[uint32]int64{2: 100}}})
	h.track(1, 1, 100, true)
	m := h.blocks[1].Meta
	m.Tenant = 2
	if err := h.p.Update(1, m, h.now); err != nil {
		t.Fatal(err)
	}
	s := h.p.Stats()
	if len(s.Tenants) != 2 || s.Tenants[0].FastBytes != 0 || s.Tenants[1].FastBytes != 100 {
		t.Errorf("tenants %+v", s.Tenants)
	}
	m.Pinned = true
	if err := h.p.Update(1, m, h.now); err != nil {
		t.Fatal(err)
	}
	h.track(2, 2, 100, false)
	h.access(2)
	pl := h.plan() // the only fast block is pinned: nothing can make room
	h.want(pl, []policy.BlockID{}, []policy.BlockID{})
	if pl.Deferred != 1 {
		t.Errorf("deferred %d", pl.Deferred)
	}
}
