package numa

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestMoverNoPartialMoveForBudget: a move the remaining budget cannot
// carry whole is left for a later epoch instead of being cut to what
// fits. A block moved in part was reported not moved, so a promotion cut
// short left pages in the fast tier that nobody counted against its
// budget. Only the first move of a Run may be cut (a block larger than
// one epoch's budget still makes progress). Node 1 of the fixture is not
// on this host, so every attempted move fails after its query; the calls
// show what was attempted. (The bytes-per-second budget goes through the
// same cut, but a failed move refunds its bytes, so only moves that
// succeed, on two nodes, can spend it.)
func TestMoverNoPartialMoveForBudget(t *testing.T) {
	topo := fixtureTopology(t, "cxl-2node")
	self := openSkip(t, os.Getpid())
	tests := []struct {
		name      string
		budgets   Budgets
		deadline  time.Duration
		wantCalls int // 2 queries and 1 move: the second move not attempted
		wantSkip  [2]int
	}{
		{"pages per epoch", Budgets{PagesPerEpoch: 12}, time.Minute, 3, [2]int{8, 8}},
		{"first move may be cut", Budgets{PagesPerEpoch: 4}, time.Minute, 3, [2]int{8, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := testBuffer(t, 16)
			m, err := NewMover(topo, MoverConfig{Budgets: tt.budgets})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
			defer cancel()
			half := uint64(len(b) / 2)
			rep := m.Run(ctx, Plan{
				{Proc: self, Addr: bufAddr(b), Len: half, Node: 1},
				{Proc: self, Addr: bufAddr(b) + uintptr(half), Len: half, Node: 1},
			})
			if rep.Calls != tt.wantCalls {
				t.Errorf("%d calls, want %d; outcomes %+v", rep.Calls, tt.wantCalls, rep.Outcomes)
			}
			for i, out := range rep.Outcomes {
				if out.Skipped != tt.wantSkip[i] {
					t.Errorf("move %d: %d pages skipped, want %d (%+v)", i, out.Skipped, tt.wantSkip[i], out)
				}
			}
			if out := rep.Outcomes[0]; !errors.Is(out.Err, ErrNoNode) {
				t.Errorf("first move: %v, want it attempted (ErrNoNode)", out.Err)
			}
			if out := rep.Outcomes[1]; !errors.Is(out.Err, ErrBudget) {
				t.Errorf("second move: %v, want ErrBudget (not attempted)", out.Err)
			}
			checkPattern(t, b)
		})
	}
}
