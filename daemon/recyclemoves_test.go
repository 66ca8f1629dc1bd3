package daemon

import (
	"os"
	"testing"

	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// TestRecycleMoves: a decision fills the buffers the last epoch handed
// back (recycleMoves) with the plan's moves, in order, each with its own
// region (moves of two regions); the buffers handed back hold no region
// or process; a decision with no buffers handed back allocates its own.
func TestRecycleMoves(t *testing.T) {
	d, _ := fixtureDaemon(t, feedbackConfig)
	proc, err := numa.OpenProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range 2 {
		_, err := d.trackLocked(regionSpec{pid: os.Getpid(), addr: uint64(1+i) << 40, length: 16 * 256 << 10,
			blockSz: 256 << 10, source: "test", priority: policy.PriorityNormal, refcount: 1}, proc)
		if err != nil {
			t.Fatal(err)
		}
	}
	_, moves, mp := d.decideLocked(d.now())
	if len(moves) < 2 || moves[0].r == moves[len(moves)-1].r {
		t.Fatalf("%d moves, of one region: want the moves of both regions", len(moves))
	}
	d.feedback(moves, nil, d.now()) // nothing moved: the next plan demotes again
	d.recycleMoves(moves, mp)
	if moves[0].r != nil || mp[0].Proc != nil {
		t.Fatal("recycled moves still hold their region or process")
	}
	pl, again, mp2 := d.decideLocked(d.now())
	if len(again) < 2 || &again[0] != &moves[0] || &mp2[0] != &mp[0] {
		t.Fatalf("the decision after recycleMoves (%d moves) did not reuse the buffers", len(again))
	}
	order := pl.Order()
	if len(order) != len(again) || len(mp2) != len(again) {
		t.Fatalf("%d moves and %d mover moves of a plan of %d", len(again), len(mp2), len(order))
	}
	for i, m := range order {
		rid, idx := splitBlockID(m.Block.ID)
		r := d.regions[rid]
		want := numa.Move{Proc: r.proc, Addr: uintptr(r.blockAddr(idx)), Len: r.blockLen(idx), Node: d.slowNode}
		if m.Promote {
			want.Node = d.fastNode
		}
		if again[i] != (plannedMove{r: r, index: idx, promote: m.Promote, reason: m.Reason}) || !sameMove(mp2[i], want) {
			t.Fatalf("move %d: %+v and %+v, want block %d of region %d", i, again[i], mp2[i], idx, rid)
		}
	}
	if fresh, _ := d.buildMoves(pl); &fresh[0] == &again[0] {
		t.Fatal("a decision without recycled buffers shares the last one's")
	}
}

// sameMove reports whether two mover moves are equal.
func sameMove(a, b numa.Move) bool {
	return a.Proc == b.Proc && a.Addr == b.Addr && a.Len == b.Len && a.Node == b.Node && a.Pages == nil && b.Pages == nil
}
