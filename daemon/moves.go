package daemon

import (
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
)

// decideLocked is the epoch's decision: the planner's plan and the mover
// moves that carry it out.
func (d *Daemon) decideLocked(now policy.Time) (*plan.Plan, []plannedMove, numa.Plan) {
	pl := d.planner.Plan(now)
	moves, mplan := d.buildMoves(pl)
	return pl, moves, mplan
}

// buildMoves turns a plan into mover moves, each promotion after the
// demotions that make its room (plan.Plan.Order), in the buffers
// recycleMoves handed back if it did. Consecutive moves are mostly of one
// region (a pool's blocks, a victim's neighbours): the last region found
// is tried first.
func (d *Daemon) buildMoves(pl *plan.Plan) ([]plannedMove, numa.Plan) {
	order := pl.Order()
	moves, mp := d.spareMoves, d.spareMplan
	d.spareMoves, d.spareMplan = nil, nil
	if n := len(order); cap(moves) < n || cap(mp) < n {
		moves, mp = make([]plannedMove, 0, n), make(numa.Plan, 0, n)
	}
	var r *region
	for _, m := range order {
		rid, idx := splitBlockID(m.Block.ID)
		if r == nil || r.id != rid {
			if r = d.regions[rid]; r == nil {
				continue
			}
		}
		node := d.fastNode
		if !m.Promote {
			node = d.slowNode
		}
		moves = append(moves, plannedMove{r: r, index: idx, promote: m.Promote, reason: m.Reason})
		mp = append(mp, numa.Move{Proc: r.proc, Addr: uintptr(r.blockAddr(idx)), Len: r.blockLen(idx), Node: node})
	}
	return moves, mp
}

// recycleMoves hands the moves of an epoch back once nothing reads them
// any more, for the next buildMoves to fill: at 10M blocks, an epoch's
// 100K moves are 8 MB, which new slices would page-fault in at every
// decision. The moves are cleared, so that the buffers keep no region or
// process alive.
func (d *Daemon) recycleMoves(moves []plannedMove, mp numa.Plan) {
	clear(moves)
	clear(mp)
	d.spareMoves, d.spareMplan = moves[:0], mp[:0]
}
