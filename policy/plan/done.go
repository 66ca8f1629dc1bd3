package plan

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// Done reports the outcome of a planned move of the block with id:
// promoted says which direction the caller executed, ok whether the block
// actually moved. Only now does the policy learn of a promotion (Admit); a
// demotion that failed puts the block back among the policy's residents.
func (p *Planner) Done(id policy.BlockID, promoted, ok bool, now policy.Time) error {
	e, found := p.blocks[id]
	if !found {
		return fmt.Errorf("completing move of block %d: %w", id, ErrUnknownBlock)
	}
	want := pendDemote
	if promoted {
		want = pendPromote
	}
	if e.pending != want {
		dir := "demotion"
		if promoted {
			dir = "promotion"
		}
		return fmt.Errorf("completing %s of block %d: %w", dir, id, ErrNotPending)
	}
	p.unpend(e)
	if promoted {
		if ok {
			e.fast = true
			p.addFast(e)
			p.moved(e, now)
			delete(p.pinnedSlow, id)
			if !e.b.Meta.Pinned {
				e.pol.Admit(e.b, now)
				e.admitted = true
			}
		} else if e.b.Meta.Pinned {
			p.pinnedSlow[id] = e
		}
		return nil
	}
	if ok {
		e.fast = false
		p.dropFast(e)
		p.moved(e, now)
		if e.b.Meta.Pinned {
			p.pinnedSlow[id] = e
		}
		return nil
	}
	if !e.b.Meta.Pinned {
		e.pol.Admit(e.b, now)
		e.admitted = true
	}
	return nil
}

func (p *Planner) moved(e *entry, now policy.Time) {
	e.lastMove = now
	e.moved = true
}
