package plan

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// SetTier corrects the tier of a tracked block that the caller found
// elsewhere than the planner believes: moved by someone else (another
// tool, the kernel's own balancing), or placed differently than reported.
// A block found fast joins the tier's accounting and its policy; one found
// slow leaves them, and if it is pinned the next Plan promotes it. A block
// with a pending move is left alone (its Done will say where it is) and
// SetTier returns false; it returns true when the tier changed.
func (p *Planner) SetTier(id policy.BlockID, fast bool, now policy.Time) (bool, error) {
	e, slot, ok := p.lookupSlot(id)
	if !ok {
		return false, fmt.Errorf("setting the tier of block %d: %w", id, ErrUnknownBlock)
	}
	if e.pending != pendNone || e.fast == fast {
		return false, nil
	}
	e.fast = fast
	if fast {
		p.addFast(e)
		delete(p.pinnedSlow, id)
		if !e.b.Meta.Pinned && !e.admitted {
			p.admit(e, slot, now)
		}
		return true, nil
	}
	p.dropFast(e)
	if e.admitted {
		p.pol(e).Evict(e.b, now)
		e.admitted = false
	}
	if e.b.Meta.Pinned {
		p.pinnedSlow[id] = e
	}
	return true, nil
}

// DropTenant forgets the state of tenant id (its accounting and its bucket
// policies), so that a caller whose tenants come and go keeps the planner
// bounded. The tenant must have no tracked block left (ErrTenantInUse);
// dropping an unknown tenant does nothing. Tracking a block of the tenant
// again starts it afresh.
func (p *Planner) DropTenant(id uint32) error {
	t, ok := p.tenants[id]
	if !ok {
		return nil
	}
	if t.blocks > 0 {
		return fmt.Errorf("dropping tenant %d with %d blocks: %w", id, t.blocks, ErrTenantInUse)
	}
	for _, pools := range t.pools {
		if len(pools) > 0 {
			return fmt.Errorf("dropping tenant %d with an open pool: %w", id, ErrTenantInUse)
		}
	}
	delete(p.tenants, id)
	return nil
}
