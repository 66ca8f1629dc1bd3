package plan

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestHeadroom: plans keep Headroom of the capacity free by demoting cold
// blocks (unseen for coldEpochs epochs, tracked at least as long), policy
// order first, within the move budget, never a block with recent accesses
// or one just tracked; the next promotion then goes into the free room
// alone.
func TestHeadroom(t *testing.T) {
	for _, tc := range []struct {
		name       string
		headroom   float64
		moveBlocks int
		hot        []policy.BlockID // accessed in the epoch before the plan
		demote     []policy.BlockID
	}{
		{name: "off", headroom: 0},
		{name: "two of ten cold", headroom: 0.2, demote: []policy.BlockID{1, 2}},
		{name: "budget of one", headroom: 0.2, moveBlocks: 1, demote: []policy.BlockID{1}},
		{name: "least recently used first", headroom: 0.3, hot: []policy.BlockID{1, 3}, demote: []policy.BlockID{2, 4, 5}},
		{name: "a warm block stops it", headroom: 0.3, hot: []policy.BlockID{1, 2, 3, 4, 5, 6, 7, 8, 9},
			demote: []policy.BlockID{10}},
		{name: "all warm", headroom: 0.2, hot: []policy.BlockID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: Budget{FastBytes: 1000, MoveBlocks: tc.moveBlocks},
				Headroom: tc.headroom, Reuse: 8})
			for id := policy.BlockID(1); id <= 10; id++ {
				h.track(id, 0, 100, true)
			}
			h.track(11, 0, 100, false)
			// Blocks just tracked have no history: not cold for
			// coldEpochs plans, whatever the headroom.
			for i := 0; i < coldEpochs; i++ {
				if pl := h.plan(); len(pl.Demote)+len(pl.Promote) != 0 {
					t.Fatalf("plan %d moves %v and %v: blocks tracked %d epochs ago are not cold yet",
						i+1, ids(pl.Demote), ids(pl.Promote), i+1)
				}
			}
			h.access(tc.hot...)
			pl := h.plan()
			if got := ids(pl.Demote); !slices.Equal(got, tc.demote) || len(pl.Promote) != 0 {
				t.Fatalf("plan demotes %v and promotes %v, want demotions %v only", got, ids(pl.Promote), tc.demote)
			}
			for _, m := range pl.Demote {
				if m.Reason != ReasonHeadroom {
					t.Errorf("block %d demoted for %s, want headroom", m.Block.ID, m.Reason)
				}
			}
			h.doneAll(pl)
			if len(tc.demote) == 0 {
				return
			}
			// Block 11, read twice, goes into the free room alone.
			h.access(11, 11)
			pl = h.plan()
			if len(pl.Promote) != 1 || pl.Promote[0].Block.ID != 11 {
				t.Fatalf("after the headroom the plan promotes %v, want [11]", ids(pl.Promote))
			}
			for _, m := range pl.Demote {
				if m.Reason != ReasonHeadroom {
					t.Errorf("block %d demoted for %s next to the promotion, want only headroom refills",
						m.Block.ID, m.Reason)
				}
			}
		})
	}
}

// TestHeadroomBad: a headroom outside [0, 0.5] is refused, naming it.
func TestHeadroomBad(t *testing.T) {
	for _, v := range []float64{-0.1, 0.6, math.NaN()} {
		_, err := New(Config{Policy: "lru", Headroom: v})
		if err == nil || !strings.Contains(err.Error(), "headroom") {
			t.Errorf("Headroom %v: error %v, want one naming headroom", v, err)
		}
	}
}
