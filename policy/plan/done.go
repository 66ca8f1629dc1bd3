package plan

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// Done reports the outcome of a planned move of the block with id:
// promoted says which direction the caller executed, ok whether the block
// actually moved. Only now does the policy learn of a promotion (Admit); a
// demotion that failed puts the block back among the policy's residents.
//
// Done for a move abandoned by Untrack changes nothing and returns
// ErrUntracked (test with errors.Is); the planner recognises such a move
// once, for abandonHorizon plans or until the ID is tracked again. Done for
// an ID it neither tracks nor recognises returns ErrUnknownBlock, and for a
// tracked block without that planned move, ErrNotPending.
func (p *Planner) Done(id policy.BlockID, promoted, ok bool, now policy.Time) error {
	want := pendDemote
	if promoted {
		want = pendPromote
	}
	e, slot, found := p.lookupSlot(id)
	if !found {
		return p.doneUntracked(id, want)
	}
	if e.pending != want {
		return fmt.Errorf("completing %s of block %d: %w", dirName(want), id, ErrNotPending)
	}
	p.unpend(e)
	if promoted {
		if ok {
			e.fast = true
			p.addFast(e)
			p.moved(e, now)
			delete(p.pinnedSlow, id)
			if !e.b.Meta.Pinned {
				p.admit(e, slot, now)
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
		p.admit(e, slot, now)
	}
	return nil
}

func (p *Planner) moved(e *entry, now policy.Time) {
	e.lastMove = now
	e.moved = true
}

// abandonHorizon is the number of plans for which Done recognises a move
// abandoned by Untrack, so that callers that never report such moves do
// not make the planner grow.
const abandonHorizon = 64

// abandon is a pending move that Untrack abandoned.
type abandon struct {
	dir   int8   // pendPromote or pendDemote
	epoch uint64 // plans made when the block was untracked
}

// doneUntracked answers Done for an ID the planner does not track.
func (p *Planner) doneUntracked(id policy.BlockID, want int8) error {
	a, ok := p.abandoned[id]
	if !ok {
		return fmt.Errorf("completing %s of block %d: %w", dirName(want), id, ErrUnknownBlock)
	}
	if a.dir != want {
		return fmt.Errorf("completing %s of block %d: %w", dirName(want), id, ErrNotPending)
	}
	delete(p.abandoned, id)
	return fmt.Errorf("completing %s of block %d: %w", dirName(want), id, ErrUntracked)
}

// expireAbandoned forgets moves abandoned abandonHorizon plans ago.
func (p *Planner) expireAbandoned() {
	for id, a := range p.abandoned {
		if p.epoch-a.epoch >= abandonHorizon {
			delete(p.abandoned, id)
		}
	}
}

func dirName(pend int8) string {
	if pend == pendPromote {
		return "promotion"
	}
	return "demotion"
}
