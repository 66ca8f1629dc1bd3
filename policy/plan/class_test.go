package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestUpdateTellsPolicy: a class change that keeps the block in its
// bucket reaches the policy (policy.Updater) at once. tiered_classes must
// rank blocks 3 and 4, marked think_complete without being read again,
// before think_active blocks 1 and 2, although 3 and 4 were read last.
func TestUpdateTellsPolicy(t *testing.T) {
	const size = 2 << 20
	tests := []struct {
		name   string
		policy string
		mark   []policy.BlockID
		victim []policy.BlockID // acceptable victims for the new block
	}{
		{"think_complete first", "tiered_classes", []policy.BlockID{3, 4}, []policy.BlockID{3, 4}},
		{"one marked", "tiered_classes", []policy.BlockID{4}, []policy.BlockID{4}},
		{"nothing marked", "tiered_classes", nil, []policy.BlockID{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Policy: tt.policy, Budget: Budget{FastBytes: 4 * size}})
			active := func(m *policy.Meta) { m.Class = policy.ClassThinkActive }
			for id := policy.BlockID(1); id <= 5; id++ {
				h.track(id, 0, size, id <= 4, active)
			}
			h.access(1, 2, 3, 4)
			for _, id := range tt.mark {
				m := h.blocks[id].Meta
				m.Class = policy.ClassThinkComplete
				h.now++
				if err := h.p.Update(id, m, h.now); err != nil {
					t.Fatal(err)
				}
			}
			h.access(5, 5)
			pl := h.plan()
			if len(pl.Promote) != 1 || pl.Promote[0].Block.ID != 5 || len(pl.Demote) != 1 {
				t.Fatalf("plan demotes %v and promotes %v, want one demotion for block 5", ids(pl.Demote), ids(pl.Promote))
			}
			got := pl.Demote[0].Block.ID
			ok := false
			for _, v := range tt.victim {
				ok = ok || v == got
			}
			if !ok {
				t.Errorf("demoted block %d (class %v), want one of %v", got, h.blocks[got].Meta.Class, tt.victim)
			}
		})
	}
}

// TestSetMoveCap: the cap lowers the epoch's byte budget below
// Budget.MoveBytes, never raises it, and 0 removes it.
func TestSetMoveCap(t *testing.T) {
	tests := []struct {
		name      string
		moveBytes int64
		cap       int64
		want      int // promotions of 100-byte blocks
	}{
		{"no cap", 500, 0, 5},
		{"cap below the budget", 500, 300, 3},
		{"cap above the budget", 200, 300, 2},
		{"cap without a budget", 0, 400, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 1000, MoveBytes: tt.moveBytes}})
			for id := policy.BlockID(1); id <= 6; id++ {
				h.track(id, 0, 100, false)
				h.access(id)
			}
			h.p.SetMoveCap(tt.cap)
			pl := h.plan()
			if len(pl.Promote) != min(tt.want, 6) || len(pl.Demote) != 0 {
				t.Errorf("plan promotes %v and demotes %v, want %d promotions", ids(pl.Promote), ids(pl.Demote), tt.want)
			}
		})
	}
}
