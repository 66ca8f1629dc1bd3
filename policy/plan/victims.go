package plan

import (
	"math"
	"sort"

	"github.com/kvtier/kvtier/policy"
)

// load is the fast-tier bytes the planner counts against the capacity:
// resident blocks and pending promotions, less pending demotions.
func (p *Planner) load() int64 { return p.used + p.incoming - p.outgoing }

// load is the fast-tier bytes counted against t's quota.
func (t *tenant) load() int64 { return t.used + t.incoming - t.outgoing }

// shed spends the migration budget on bringing over-budget tenants and an
// over-full tier back under budget, before any promotion is considered:
// first each tenant over its quota (overs, from overages) demotes its own
// blocks (largest overage first, so tenants equally over take turns),
// which also reduces the tier's overage; then what is still over the
// capacity comes from every tenant.
func (p *Planner) shed(overs []overage, bud *budget, now policy.Time, pl *Plan) {
	for _, o := range overs {
		if bud.empty() {
			break
		}
		p.evictOwn(o.t, o.bytes, ReasonQuota, bud, now, pl, noGuard)
	}
	c := p.capacity()
	if over := p.load() - c; c > 0 && over > 0 && !bud.empty() {
		p.evictOthers(nil, over, ReasonCapacity, bud, now, pl, noGuard)
	}
}

// overage is the bytes a tenant is over its quota.
type overage struct {
	t     *tenant
	bytes int64
}

// overages returns the tenants over their quotas, largest overage first,
// and the overage a plan starts from: the larger of the tier's and the
// sum of the tenants'.
func (p *Planner) overages() ([]overage, int64) {
	var overs []overage
	var global, sum int64
	if c := p.capacity(); c > 0 {
		global = max(0, p.load()-c)
	}
	for id, t := range p.tenants {
		if q := p.cfg.quota(id); q > 0 && t.load() > q {
			overs = append(overs, overage{t, t.load() - q})
			sum += t.load() - q
		}
	}
	sort.Slice(overs, func(i, j int) bool {
		if overs[i].bytes != overs[j].bytes {
			return overs[i].bytes > overs[j].bytes
		}
		return overs[i].t.id < overs[j].t.id
	})
	return overs, max(global, sum)
}

// noGuard is the guard of demotions that an operator's budget requires:
// they need no evidence against the victim.
var noGuard = math.Inf(1)

// take demotes victims from pol until bytes are freed, the bucket runs out
// of blocks old enough to move (Cooldown) or of blocks colder than guard,
// or the budget is spent. It returns the bytes freed and whether the
// budget stopped it.
//
// guard is the rule "no evidence, no move" for demotions that make room
// for promotions: a victim is demoted only if its heat is below the
// coldest promotion's by at least PromoteMin, so a block is never swapped
// out for one the samplers have seen no more of (with no samples at all,
// nothing moves). Demotions an operator's budget requires pass noGuard;
// the headroom's pass coldOnly (the victim must be cold, see cold).
func (p *Planner) take(pol policy.Policy, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan, guard float64) (freed int64, spent bool) {
	w, last := windowOf(pol), int64(0)
	for freed < bytes {
		if w.left == 0 && w.lists() { // victimsFor divides: once a window, not a victim
			w.fetch(p, victimsFor(bytes-freed, last, bud))
		}
		w.left = max(w.left-1, 0)
		v, e, ok := w.victim(p, pol, now)
		if !ok {
			return freed, false
		}
		if e == nil || e.b != v || !e.admitted {
			// The policy holds a block the planner no longer tracks
			// as resident: drop it so it cannot be chosen again.
			pol.Forget(v)
			continue
		}
		if e.moved && now-e.lastMove < p.cfg.Cooldown {
			return freed, false
		}
		// The candidates were ranked by their heat of the epoch this
		// plan ends (p.epoch-1 by now): the victim's counts the same.
		if guard == coldOnly {
			if !p.cold(e) {
				return freed, false
			}
		} else if p.heatAt(e, p.epoch-1)+p.cfg.promoteMin() > guard {
			return freed, false
		}
		size := e.sizeOf()
		if !bud.fits(size, 1) {
			return freed, true
		}
		bud.take(size, 1)
		w.evict(pol, v, now)
		e.admitted = false
		e.pending = pendDemote
		p.outgoing += size
		p.tenOf(e).outgoing += size
		pl.Demote = append(pl.Demote, Move{Block: v, Reason: r})
		freed += size
		last = size
	}
	return freed, false
}

// evictOwn frees up to bytes of t's own blocks: low priority first, then
// lowest class rank (think_complete before think_active and none, before
// output_critical), then unshared before shared, each bucket in its
// policy's order.
func (p *Planner) evictOwn(t *tenant, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan, guard float64) int64 {
	var freed int64
	for bk := 0; bk < nBuckets && freed < bytes; bk++ {
		f, spent := p.takeBucket(t, bk, bytes-freed, r, bud, now, pl, guard)
		freed += f
		if spent {
			break
		}
	}
	return freed
}

// evictOthers frees up to bytes of blocks of tenants other than req (of
// every tenant when req is nil): lowest sharing level first, then low
// priority, then lowest class rank, then the tenant holding the most
// fast-tier bytes, for reason r. When req is not nil every affected tenant
// gets an Event.
func (p *Planner) evictOthers(req *tenant, bytes int64, r Reason, bud *budget,
	now policy.Time, pl *Plan, guard float64) int64 {
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
	var freed int64
	for sh := 0; sh < shareLevels; sh++ {
		for pr := 0; pr < prioLevels; pr++ {
			for cl := 0; cl < classLevels; cl++ {
				for _, t := range others {
					before := len(pl.Demote)
					f, spent := p.takeBucket(t, int(bucketIndex(pr, cl, sh)), bytes-freed, r, bud, now, pl, guard)
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
// covered, marks the rest pending and returns how many they are.
func (p *Planner) commit(n *need, pl *Plan) int {
	for len(n.batch) > 0 && (n.quota > 0 || n.global > 0) {
		c := n.batch[len(n.batch)-1]
		n.batch = n.batch[:len(n.batch)-1]
		n.quota -= c.size
		n.global -= c.size
		pl.Deferred++
	}
	for _, c := range n.batch {
		c.promote = true
		c.e.pending = pendPromote
		p.incoming += c.size
		n.t.incoming += c.size
		if c.pinned { // only pinned blocks are in pinnedSlow
			delete(p.pinnedSlow, c.b.ID)
		}
	}
	return len(n.batch)
}
