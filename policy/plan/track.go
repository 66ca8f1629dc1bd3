package plan

import (
	"fmt"
	"math"

	"github.com/kvtier/kvtier/policy"
)

// Track starts tracking b, which is in the fast tier if fast. The caller
// keeps b stable until Untrack and changes its Meta only through Update.
// A fast unpinned block is admitted to the policy; a slow pinned block is
// promoted by the next Plan.
func (p *Planner) Track(b *policy.Block, fast bool, now policy.Time) error {
	_, _, err := p.track(b, p.tenant(b.Meta.Tenant), fast, true, now)
	return err
}

// track is Track, given b's tenant t, returning b's entry and its slot.
// A fast unpinned block is admitted to its policy only if admit is set
// (demotePooled evicts it at once).
func (p *Planner) track(b *policy.Block, t *tenant, fast, admit bool, now policy.Time) (*entry, uint32, error) {
	if _, ok := p.ids.get(b.ID); ok {
		return nil, 0, fmt.Errorf("tracking block %d: %w", b.ID, ErrTracked)
	}
	// A reused ID is a new block: a late Done for the old one's abandoned
	// move is no longer recognised.
	delete(p.abandoned, b.ID)
	slot := p.ents.alloc()
	e := p.ents.at(slot) // zero
	e.b, e.ten, e.bucket, e.fast, e.meta = b, t.ix, bucketOf(&b.Meta), fast, metaOf(&b.Meta)
	e.size = size32(b.Meta.Size)
	// Heat counts from now: an entry's heatEpoch of 0 would read as a
	// later epoch than the planner's once the planner is past 2^31.
	e.last, e.trackedAt, e.heatEpoch = now, uint32(p.epoch+1), uint32(p.epoch)
	p.policyFor(t, e.bucket)
	p.ids.put(b.ID, slot)
	t.blocks++
	if fast {
		p.addFast(e)
		if !b.Meta.Pinned && admit {
			p.admit(e, slot, now)
		}
	} else if b.Meta.Pinned {
		p.pinnedSlow[b.ID] = e
	}
	return e, slot, nil
}

func (p *Planner) addFast(e *entry) {
	t := p.tenOf(e)
	p.used += e.b.Meta.Size
	t.used += e.b.Meta.Size
	t.fast++
}

func (p *Planner) dropFast(e *entry) {
	t := p.tenOf(e)
	p.used -= e.b.Meta.Size
	t.used -= e.b.Meta.Size
	t.fast--
}

// Untrack forgets the block with id (it was freed or its region is gone).
// A pending move of the block is abandoned: its bytes no longer count as
// pending, no later plan lists the block, and Done for the move returns
// ErrUntracked.
func (p *Planner) Untrack(id policy.BlockID) error {
	slot, ok := p.ids.get(id)
	if !ok {
		return fmt.Errorf("untracking block %d: %w", id, ErrUnknownBlock)
	}
	e := p.ents.at(slot)
	if e.fast {
		p.dropFast(e)
	}
	if e.pending != pendNone {
		p.abandoned[id] = abandon{dir: e.pending, epoch: p.epoch}
	}
	p.unpend(e)
	p.pol(e).Forget(e.b)
	p.tenOf(e).blocks--
	delete(p.pinnedSlow, id)
	p.ids.del(id)
	p.ents.retire(slot) // leaves it without a block: touched may still hold it
	return nil
}

// pendAccount adds (sign +1) or removes (-1) e's pending move from the
// pending byte counts.
func (p *Planner) pendAccount(e *entry, sign int64) {
	size := sign * e.b.Meta.Size
	switch e.pending {
	case pendPromote:
		p.incoming += size
		p.tenOf(e).incoming += size
	case pendDemote:
		p.outgoing += size
		p.tenOf(e).outgoing += size
	}
}

// unpend clears e's pending move.
func (p *Planner) unpend(e *entry) {
	p.pendAccount(e, -1)
	e.pending = pendNone
}

// Update replaces the metadata of a tracked block (class, priority,
// reference count, pinned, tenant, size). A change of tenant, priority,
// class rank or sharing level moves the block to another bucket policy,
// which forgets its history. Any other change of an unpinned block is told to its
// bucket policy at once if the policy implements policy.Updater (a class
// demotion reorders tiered_classes without waiting for an access).
func (p *Planner) Update(id policy.BlockID, m policy.Meta, now policy.Time) error {
	e, slot, ok := p.lookupSlot(id)
	if !ok {
		return fmt.Errorf("updating block %d: %w", id, ErrUnknownBlock)
	}
	old := e.b.Meta
	nb := bucketOf(&m)
	moveBucket := nb != e.bucket || m.Tenant != e.b.Meta.Tenant
	if e.fast {
		p.dropFast(e)
	}
	p.pendAccount(e, -1)
	if moveBucket || (m.Pinned && !e.b.Meta.Pinned) {
		p.pol(e).Forget(e.b)
		e.admitted = false
	}
	if m.Tenant != e.b.Meta.Tenant {
		p.tenOf(e).blocks--
		t := p.tenant(m.Tenant)
		e.ten = t.ix
		t.blocks++
	}
	e.b.Meta = m
	e.bucket, e.meta, e.size = nb, metaOf(&m), size32(m.Size)
	p.policyFor(p.tenOf(e), nb)
	if !moveBucket && !old.Pinned && !m.Pinned && old != m {
		// The same policy keeps the block (resident, or as a ghost):
		// tell it what changed.
		if u, ok := p.pol(e).(policy.Updater); ok {
			u.Update(e.b, old, now)
		}
	}
	if e.fast {
		p.addFast(e)
	}
	p.pendAccount(e, +1)
	if e.fast && !m.Pinned && !e.admitted && e.pending != pendDemote {
		p.admit(e, slot, now)
	}
	if m.Pinned && !e.fast && e.pending == pendNone {
		p.pinnedSlow[id] = e
	} else {
		delete(p.pinnedSlow, id)
	}
	return nil
}

// Access records count sampled accesses to the block with id at now, seen
// in one observation window of SourceSampled. The block's policy sees
// min(count, PolicyTouches) accesses; the heat that ranks promotions
// counts them all.
func (p *Planner) Access(id policy.BlockID, count uint32, now policy.Time) error {
	return p.Observe(id, Observation{Count: count}, now)
}

// Observe records what one report (a sampler's drain, a hint request)
// says of the accesses to the block with id at now: Access with the
// observation windows and the source that judge reuse (Config.Reuse).
func (p *Planner) Observe(id policy.BlockID, o Observation, now policy.Time) error {
	e, ok := p.lookup(id)
	if !ok {
		return fmt.Errorf("access to block %d: %w", id, ErrUnknownBlock)
	}
	if o.Count == 0 {
		return nil
	}
	if o.Source >= nSources {
		return fmt.Errorf("access to block %d: source %d: %w", id, o.Source, ErrBadSource)
	}
	p.heatNow(e)
	e.heat += float64(o.Count)
	e.last = now
	cur := uint32(p.epoch + 1)
	if e.lastSeen() != cur { // first observation this epoch
		p.touched = append(p.touched, touch{e, id})
	}
	e.see(o.Source, cur, max(o.Windows, 1))
	if e.b.Meta.Pinned {
		return nil
	}
	n := min(int(o.Count), p.cfg.touches())
	for range n {
		p.pol(e).Access(e.b, now)
	}
	return nil
}

// reused reports whether e, sampled in this epoch, shows evidence of
// reuse from one source (see Config.Reuse): seen in two windows of this
// epoch, or in an earlier epoch at most cfg.Reuse epochs before.
func (p *Planner) reused(e *entry) bool {
	if p.cfg.Reuse == 0 {
		return true
	}
	cur := uint32(p.epoch + 1)
	for i := range e.sight {
		if e.sight[i].reused(e.windows[i], cur, uint32(p.cfg.Reuse)) {
			return true
		}
	}
	return false
}

// heatNow applies the decay of the epochs since e's heat was last updated.
func (p *Planner) heatNow(e *entry) {
	if _, later := heatGap(e, p.epoch); later {
		e.heat = p.heatAt(e, p.epoch)
		e.heatEpoch = uint32(p.epoch)
	}
}

// heatGap is the epochs from e's last heat update to epoch, counted in 32
// bits with wrap-around (heatEpoch keeps the epoch's low 32 bits, which a
// 1 ms epoch wraps in 50 days); later is false when epoch is not after it.
func heatGap(e *entry, epoch uint64) (gap uint32, later bool) {
	gap = uint32(epoch) - e.heatEpoch
	return gap, gap != 0 && gap <= 1<<31
}

// heatAt is e's heat decayed to epoch (not before its last update).
func (p *Planner) heatAt(e *entry, epoch uint64) float64 {
	gap, later := heatGap(e, epoch)
	if !later {
		return e.heat
	}
	if p.cfg.Decay == 0 || gap > 64 {
		return 0
	}
	return e.heat * math.Pow(p.cfg.Decay, float64(gap))
}
