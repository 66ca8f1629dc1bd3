package plan

import (
	"sort"

	"github.com/kvtier/kvtier/policy"
)

// overCapacity returns the bytes by which the tier is over capacity before
// the batch, and appends to order the tenants over their quota that have no
// promotion this epoch: they free their own blocks.
func (p *Planner) overCapacity(needs map[uint32]*need, order []*need) (int64, []*need) {
	var over int64
	if c := p.cfg.Budget.FastBytes; c > 0 {
		over = max(0, p.used+p.incoming-p.outgoing-c)
	}
	var ids []uint32
	for id, t := range p.tenants {
		if _, ok := needs[id]; ok {
			continue
		}
		if q := p.cfg.quota(id); q > 0 && t.used+t.incoming-t.outgoing > q {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		t := p.tenants[id]
		n := &need{t: t, quota: t.used + t.incoming - t.outgoing - p.cfg.quota(id)}
		needs[id] = n
		order = append(order, n)
	}
	// Quota evictions also reduce the global overage.
	return over, order
}

// take demotes victims from pol until bytes are freed, the bucket runs out
// of blocks old enough to move (Cooldown), or the budget is spent. It
// returns the bytes freed and whether the budget stopped it.
func (p *Planner) take(pol policy.Policy, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan) (freed int64, spent bool) {
	for freed < bytes {
		v, ok := pol.Victim(now)
		if !ok {
			return freed, false
		}
		e, tracked := p.blocks[v.ID]
		if !tracked || e.b != v || !e.admitted {
			// The policy holds a block the planner no longer tracks
			// as resident: drop it so it cannot be chosen again.
			pol.Forget(v)
			continue
		}
		if e.moved && now-e.lastMove < p.cfg.Cooldown {
			return freed, false
		}
		size := v.Meta.Size
		if !bud.fits(size, 1) {
			return freed, true
		}
		bud.take(size, 1)
		pol.Evict(v, now)
		e.admitted = false
		e.pending = pendDemote
		p.outgoing += size
		e.ten.outgoing += size
		pl.Demote = append(pl.Demote, Move{Block: v, Reason: r})
		freed += size
	}
	return freed, false
}

// evictOwn frees up to bytes of t's own blocks: low priority first, then
// unshared before shared, each bucket in its policy's order.
func (p *Planner) evictOwn(t *tenant, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan) int64 {
	var freed int64
	for bk := 0; bk < nBuckets && freed < bytes; bk++ {
		pol := t.pols[bk]
		if pol == nil {
			continue
		}
		f, spent := p.take(pol, bytes-freed, r, bud, now, pl)
		freed += f
		if spent {
			break
		}
	}
	return freed
}

// evictOthers frees up to bytes of blocks of tenants other than req (of
// every tenant when req is nil): lowest sharing level first, then low
// priority, then the tenant holding the most fast-tier bytes. When req is
// not nil every affected tenant gets an Event.
func (p *Planner) evictOthers(req *tenant, bytes int64, bud *budget,
	now policy.Time, pl *Plan) int64 {
	var others []*tenant
	for _, t := range p.tenants {
		if t != req && t.fast > 0 {
			others = append(others, t)
		}
	}
	sort.Slice(others, func(i, j int) bool {
		if others[i].used != others[j].used {
			return others[i].used > others[j].used
		}
		return others[i].id < others[j].id
	})
	r := ReasonCapacity
	if req != nil {
		r = ReasonCrossTenant
	}
	var freed int64
	for sh := 0; sh < shareLevels; sh++ {
		for pr := 0; pr < prioLevels; pr++ {
			for _, t := range others {
				pol := t.pols[pr*shareLevels+sh]
				if pol == nil {
					continue
				}
				before := len(pl.Demote)
				f, spent := p.take(pol, bytes-freed, r, bud, now, pl)
				if f > 0 && req != nil {
					pl.event(t.id, req.id, len(pl.Demote)-before, f)
				}
				freed += f
				if spent || freed >= bytes {
					return freed
				}
			}
		}
	}
	return freed
}

// event adds n blocks and bytes to the event of tenant t losing room to
// req.
func (pl *Plan) event(t, req uint32, n int, bytes int64) {
	for i := range pl.Events {
		if ev := &pl.Events[i]; ev.Tenant == t && ev.Requester == req {
			ev.Blocks += n
			ev.Bytes += bytes
			return
		}
	}
	pl.Events = append(pl.Events, Event{Tenant: t, Requester: req, Blocks: n, Bytes: bytes})
}

// commit defers t's lowest-ranked promotions while its shortage is not
// covered and marks the rest pending.
func (p *Planner) commit(n *need, pl *Plan) {
	for len(n.batch) > 0 && (n.quota > 0 || n.global > 0) {
		e := n.batch[len(n.batch)-1]
		n.batch = n.batch[:len(n.batch)-1]
		n.quota -= e.b.Meta.Size
		n.global -= e.b.Meta.Size
		pl.Deferred++
	}
	for _, e := range n.batch {
		e.pending = pendPromote
		p.incoming += e.b.Meta.Size
		n.t.incoming += e.b.Meta.Size
		delete(p.pinnedSlow, e.b.ID)
	}
}
