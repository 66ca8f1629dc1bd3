package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestUpdateTellsPolicy: a class change reaches the ordering at once
// (through the bucket since classes rank buckets, and policy.Updater for
// a change within a bucket). tiered_classes must
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

// TestDemotionOrderByClass: under every policy a tenant's victims come
// low priority first, then think_complete, then think_active/none, then
// output_critical, unshared before shared within a class, and only then
// in the policy's order. Hand-worked: six fast 2 MiB blocks fill the
// tier; four slow blocks read four times each (hotter than every victim
// by PromoteMin: no evidence, no move) need four victims:
//
//	1 think_active, unshared, read     -> 4th (the only unshared rank-1 block)
//	2 think_active, shared (refcount 2) -> kept (shared after unshared)
//	3 think_complete, read last        -> 2nd or 3rd (rank 0, whatever its heat)
//	4 think_complete, read last        -> 2nd or 3rd
//	5 output_critical, never read      -> kept (rank 2, though the coldest)
//	6 think_active, low priority, read -> 1st (low priority before any class)
//
// Before, buckets were (priority, sharing) only: lru demoted 6, 5, 1, 3,
// keeping think_complete block 4 and dropping output_critical block 5.
func TestDemotionOrderByClass(t *testing.T) {
	const size = 2 << 20
	class := func(c policy.Class) func(*policy.Meta) { return func(m *policy.Meta) { m.Class = c } }
	shared := func(m *policy.Meta) { m.RefCount = 2 }
	for _, pol := range []string{"lru", "lfu", "fifo", "arc", "s3fifo", "regret_aware", "tiered_classes"} {
		t.Run(pol, func(t *testing.T) {
			h := newHarness(t, Config{Policy: pol, Budget: Budget{FastBytes: 6 * size}})
			h.track(1, 0, size, true, class(policy.ClassThinkActive))
			h.track(2, 0, size, true, class(policy.ClassThinkActive), shared)
			h.track(3, 0, size, true, class(policy.ClassThinkComplete))
			h.track(4, 0, size, true, class(policy.ClassThinkComplete))
			h.track(5, 0, size, true, class(policy.ClassOutputCritical))
			h.track(6, 0, size, true, class(policy.ClassThinkActive), lowPrio)
			for id := policy.BlockID(7); id <= 10; id++ {
				h.track(id, 0, size, false, class(policy.ClassThinkActive))
			}
			h.access(6, 1, 2, 1, 2, 3, 4, 3, 4)
			h.access(7, 8, 9, 10, 7, 8, 9, 10, 7, 8, 9, 10, 7, 8, 9, 10)
			pl := h.plan()
			if got := ids(pl.Promote); len(got) != 4 {
				t.Fatalf("promotes %v, want blocks 7-10", got)
			}
			d := ids(pl.Demote)
			if len(d) != 4 {
				t.Fatalf("demotes %v, want 4 blocks", d)
			}
			if d[0] != 6 || !(d[1] == 3 && d[2] == 4 || d[1] == 4 && d[2] == 3) || d[3] != 1 {
				t.Errorf("demotes %v in that order, want 6 (low priority), 3 and 4 (think_complete), 1 (unshared think_active)", d)
			}
		})
	}
}
