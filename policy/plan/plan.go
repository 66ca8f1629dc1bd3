package plan

import (
	"github.com/kvtier/kvtier/policy"
)

// Reason says why a move was planned.
type Reason uint8

// Reasons of moves.
const (
	// ReasonHot promotes a slow block whose sampled heat reached
	// PromoteMin.
	ReasonHot Reason = iota
	// ReasonPinned promotes a pinned block found in the slow tier.
	ReasonPinned
	// ReasonQuota demotes a block of a tenant over its quota.
	ReasonQuota
	// ReasonCapacity demotes a block of the tenant that needs room.
	ReasonCapacity
	// ReasonCrossTenant demotes another tenant's block because the
	// requesting tenant's own blocks were not enough.
	ReasonCrossTenant
	// ReasonHeadroom demotes a cold block to keep Config.Headroom of the
	// fast tier free for the next promotions.
	ReasonHeadroom
)

var reasonNames = [...]string{"hot", "pinned", "quota", "capacity", "cross_tenant", "headroom"}

// String returns the reason's name.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}

// Move is one planned migration.
type Move struct {
	Block   *policy.Block
	Promote bool // to the fast tier; false demotes to the slow tier
	Reason  Reason
}

// Event tells a tenant that another tenant took its fast-tier room.
type Event struct {
	Tenant    uint32 // the tenant whose blocks were demoted
	Requester uint32 // the tenant that needed the room
	Blocks    int
	Bytes     int64
}

// Plan is one epoch's tentative decision. Execute its moves in Order
// (demotions make the room before the promotions that need it) and report
// every move with Planner.Done.
type Plan struct {
	Epoch   uint64
	Demote  []Move
	Promote []Move
	Events  []Event
	// Shortage is the fast-tier room (bytes) needed, computed before any
	// victim was chosen: the overage the plan started from (the larger of
	// the tier's and the sum of the tenants' over their quotas) plus the
	// room the selected promotions needed.
	Shortage int64
	// Deferred counts promotion candidates left for a later epoch because
	// of the migration budget or because no room could be made.
	Deferred int
	// shed is how many of Demote, first, bring an over-budget tier or
	// tenant back under budget (Order runs them before any promotion).
	shed int
	// order holds what Order returned last.
	order []Move
}

// Bytes returns the bytes the plan moves.
func (pl *Plan) Bytes() int64 {
	var n int64
	for _, m := range pl.Demote {
		n += m.Block.Meta.Size
	}
	for _, m := range pl.Promote {
		n += m.Block.Meta.Size
	}
	return n
}

// need is the room one tenant needs in this plan.
type need struct {
	t       *tenant
	batch   []*cand  // its selected promotions, in rank order
	quota   int64    // bytes over its quota to free from its own blocks
	global  int64    // bytes of fast-tier shortage its promotions cause
	reserve [2]int64 // budget reserved for its demotions: bytes, blocks
}

// Plan decides this epoch's moves at now. An operator's budget comes
// first: while the tier or a tenant is over its fast-tier budget (a quota
// or the capacity shrank, or regions were registered fast beyond it), the
// demotions that reduce the overage get the migration budget before any
// promotion, and no promotion goes into a tier or tenant still over budget
// after them. With what is left, Plan ranks promotion candidates (pinned
// first, then priority, then heat), selects a batch within the migration
// budget while computing the shortage it causes, per tenant and globally,
// and then frees exactly that room: each tenant's own blocks first, other
// tenants' blocks (lowest reference count first) only for what remains.
// Promotions that still do not fit are deferred. Victims are taken out of
// the policy (Evict) as they are chosen; promotions are admitted only when
// Done reports them.
func (p *Planner) Plan(now policy.Time) *Plan {
	pl := p.newPlan()
	cands := p.candidates(now)
	p.epoch++
	clear(p.touched)
	p.touched = p.touched[:0]
	p.ents.recycle() // touched no longer holds the untracked entries
	p.expireAbandoned()

	bud := p.newBudget()
	if p.hold.Promote {
		pl.Deferred += len(cands.found)
		cands.reset()
	}
	if !p.hold.Demote {
		overs, short := p.overages()
		pl.presize(int64(len(cands.found))+p.blocksOf(short), p.blocksOf(bud.bytes), &bud)
		pl.Shortage = short
		p.shed(overs, &bud, now, pl)
		pl.shed = len(pl.Demote)
	}
	if !p.mayPromote(&bud) {
		// selectBatch would defer every candidate: none is ranked.
		pl.Deferred += len(cands.found)
		cands.reset()
	}
	p.rankKeys(cands)
	order := p.selectBatch(cands, &bud, pl)
	p.makeRoom(order, &bud, now, pl)
	promoted := 0
	for _, n := range order {
		promoted += p.commit(n, pl)
		n.t.batch = n.batch[:0] // kept for the next plan's selection
	}
	if !p.hold.Demote {
		p.keepHeadroom(&bud, now, pl)
	}
	pl.listPromotions(cands, promoted)
	cands.reset()
	return pl
}

// mayPromote reports whether selectBatch may promote a candidate: the
// budget is not spent and the tier is not over its capacity.
func (p *Planner) mayPromote(bud *budget) bool {
	c := p.capacity()
	return !bud.empty() && (c <= 0 || c-p.load() >= 0)
}

// presize makes room in pl.Demote for about n victims (each promotion
// needs about one victim of its size, and shed as many as its overage
// takes), within the budget (inBytes: the victims its bytes hold), which
// spares the regrowth.
func (pl *Plan) presize(n, inBytes int64, bud *budget) {
	if bud.limN {
		n = min(n, bud.blocks)
	}
	if bud.limP {
		n = min(n, bud.pages)
	}
	if bud.limB {
		n = min(n, inBytes)
	}
	if n > int64(cap(pl.Demote)) {
		pl.Demote = make([]Move, 0, n)
	}
}

// blocksOf estimates the fast-tier blocks that hold bytes, from the mean
// size of the fast tier's blocks.
func (p *Planner) blocksOf(bytes int64) int64 {
	var n int64
	for _, t := range p.tenants {
		n += int64(t.fast)
	}
	if bytes <= 0 || n == 0 || p.used <= 0 {
		return 0
	}
	mean := max(p.used/n, 1)
	return (bytes + mean - 1) / mean
}

// makeRoom frees the room each tenant's selected promotions need: its own
// blocks first, then other tenants' for the fast tier's shortage.
func (p *Planner) makeRoom(order []*need, bud *budget, now policy.Time, pl *Plan) {
	for _, n := range order {
		pl.Shortage += max(n.quota, n.global)
	}
	for _, n := range order {
		bud.give(n.reserve[0], n.reserve[1])
		want := max(n.quota, n.global)
		// Room for pinned blocks is a class rule; for the others, a
		// victim must be colder than the promotions (guard).
		freed := p.evictOwn(n.t, min(want, n.pinnedBytes()), reasonFor(n), bud, now, pl, noGuard)
		freed += p.evictOwn(n.t, want-freed, reasonFor(n), bud, now, pl, n.guard())
		n.quota -= freed
		n.global -= freed
	}
	for _, n := range order {
		if n.global > 0 {
			n.global -= p.evictOthers(n.t, n.global, ReasonCrossTenant, bud, now, pl, n.guard())
		}
	}
}

// listPromotions lists the n candidates committed as promotions, in rank
// order (candidates were never pending, so these are this plan's). Every
// promotion ranks among the candidates selectBatch read, which it put in
// rank order.
func (pl *Plan) listPromotions(r *ranking, n int) {
	if n == 0 {
		return
	}
	if n > cap(pl.Promote) {
		pl.Promote = make([]Move, 0, n)
	}
	for i := 0; len(pl.Promote) < n; i++ {
		if c := r.at(i); c.promote {
			r := ReasonHot
			if c.pinned {
				r = ReasonPinned
			}
			pl.Promote = append(pl.Promote, Move{Block: c.b, Promote: true, Reason: r})
		}
	}
}

// guard is the heat a victim must stay below (by PromoteMin) to make room
// for n's unpinned promotions: the coldest one's heat.
func (n *need) guard() float64 {
	g := noGuard
	for _, c := range n.batch {
		if !c.pinned {
			g = min(g, c.heat)
		}
	}
	return g
}

// pinnedBytes is the size of n's pinned promotions.
func (n *need) pinnedBytes() int64 {
	var b int64
	for _, c := range n.batch {
		if c.pinned {
			b += c.size
		}
	}
	return b
}

func reasonFor(n *need) Reason {
	if n.quota > 0 && n.quota >= n.global {
		return ReasonQuota
	}
	return ReasonCapacity
}

// selectBatch picks promotions in rank order while they fit the budget,
// reserving budget for the demotions each one makes necessary (assuming
// victims of the candidate's size), and records each tenant's shortage.
// It runs after shed, so a tier or tenant still over budget could not be
// brought back under it this epoch: no promotion goes there.
func (p *Planner) selectBatch(r *ranking, bud *budget, pl *Plan) []*need {
	var order []*need
	capB := p.capacity()
	globalFree := capB - p.load()
	if capB > 0 && globalFree < 0 {
		pl.Deferred += r.len()
		return nil
	}
	for _, t := range p.tenants {
		t.sel = selection{}
	}
	want := bud.most(r.len())
	for i := range r.len() {
		if bud.empty() {
			pl.Deferred += r.len() - i
			break
		}
		if i == r.sorted {
			r.rankTo(max(want, i+1))
			want = r.len() // past the best, rank the rest
		}
		c := r.at(i)
		sel := p.selectionOf(c.ten)
		gShort, qShort, ok := p.shortfall(c, sel, capB, globalFree)
		if !ok {
			pl.Deferred++
			continue
		}
		dem := max(gShort, qShort)
		victims := int64(0)
		if dem > 0 {
			victims = (dem + c.size - 1) / c.size
		}
		if !bud.fits(c.size+dem, 1+victims) {
			pl.Deferred++
			continue
		}
		bud.take(c.size+dem, 1+victims)
		if sel.need == nil {
			sel.need = &need{t: c.ten, batch: c.ten.batch}
			order = append(order, sel.need)
		}
		sel.need.add(c, qShort, gShort, dem, victims)
		globalFree -= c.size
		sel.free -= c.size
	}
	for _, n := range order {
		n.t.sel.need = nil // the needs are the caller's now
	}
	return order
}

// shortfall returns the room c's promotion lacks in the fast tier (g)
// and in its tenant's quota (q), or false when it cannot be promoted in
// this plan: larger than the tier or the quota, its tenant still over
// its quota, or room to make while demotions are held.
func (p *Planner) shortfall(c *cand, sel *selection, capB, globalFree int64) (g, q int64, ok bool) {
	size, quota := c.size, sel.quota
	if (capB > 0 && size > capB) || (quota > 0 && size > quota) || sel.over {
		return 0, 0, false
	}
	if capB > 0 {
		g = max(0, size-max(globalFree, 0))
	}
	if quota > 0 {
		q = max(0, size-max(sel.free, 0))
	}
	if max(g, q) > 0 && p.hold.Demote {
		return 0, 0, false // only promotions into free room
	}
	return g, q, true
}

// add records c as one of n's promotions with the room it lacks and the
// budget reserved for its victims.
func (n *need) add(c *cand, qShort, gShort, dem, victims int64) {
	n.batch = append(n.batch, c)
	n.quota += qShort
	n.global += gShort
	n.reserve[0] += dem
	n.reserve[1] += victims
}

// selection is a tenant's state while selectBatch runs.
type selection struct {
	seen  bool
	over  bool  // over its quota before the batch
	quota int64 // its quota, 0 for none
	free  int64 // room left under its quota
	need  *need // its need, once a promotion was selected
}

// selectionOf returns t's selection state, set up on first use.
func (p *Planner) selectionOf(t *tenant) *selection {
	sel := &t.sel
	if !sel.seen {
		sel.seen = true
		sel.quota = p.cfg.quota(t.id)
		sel.free = sel.quota - t.load()
		sel.over = sel.quota > 0 && sel.free < 0
	}
	return sel
}
