package policy

import "math"

// raGuard is regret_adaptive's guard against being worse than LRU. It
// simulates two caches of the policy's capacity in blocks on the same
// accesses, holding no data: an LRU cache and a regret_adaptive cache
// without a guard. It counts the hits each would have had, with
// exponentially decaying counters (a hit w accesses ago weighs
// (1-1/w)^age, w = Guard x the capacity in blocks; a hit both had counts
// for neither), and the real cache follows the leader: while the
// simulated LRU leads by more than guardMargin hits, victims are the
// least recently used resident blocks; while the simulated
// regret_adaptive leads by more than guardMargin (and, to leave LRU, by
// guardZ standard deviations of a tie more), victims are
// regret_adaptive's. Between the two the last choice stays,
// so a tie (no regret: both simulations are LRU) changes nothing. This is
// set dueling (Qureshi et al., ISCA'07) with whole-cache shadows, or
// LeCaR's expert choice with a hard switch: the guarded policy pays at
// most the hits lost while the counters cross the margin.
type raGuard struct {
	window float64 // Guard: the counters' window in multiples of the capacity

	tab      *raTable // the real cache's: the guard keeps its state in the same records
	lruOrder raList   // the simulated LRU cache, front is the most recent
	ra       *RegretAdaptive

	// blocks each simulation evicted, newest at the front, at most the
	// capacity of them: the real cache evicts these first while they are
	// resident there, so it converges to the leader's simulated contents
	lruOut, raOut raList

	lruHits, raHits float64
	followLRU       bool

	// last is the block of the last access; off is set for good when a
	// block is admitted without being accessed just before (the cache is
	// fed by moves the policy did not see as accesses, as a lower tier
	// is): the simulations do not model such a cache, and the guard
	// leaves every choice to the policy
	last *Block
	off  bool
}

// guardMargin is the lead, in decayed hits that one simulation had and
// the other did not, at which the guard switches.
const guardMargin = 1.0

// guardZ is the number of standard deviations of a tie by which the
// unguarded simulation must lead before the guard leaves LRU.
const guardZ = 2.0

func newRAGuard(c RegretAdaptiveConfig, env Env, tab *raTable) *raGuard {
	inner := c
	inner.Guard = 0
	return &raGuard{window: c.Guard, tab: tab, ra: newRegretAdaptive(inner, env, tab, 1),
		lruOrder: raList{kind: raLRU}, lruOut: raList{kind: raLOut}, raOut: raList{kind: raROut}}
}

// access replays one access through both simulations (capacity blocks
// each) and updates the counters and the leader.
func (g *raGuard) access(b *Block, now Time, capacity int) {
	if g.off {
		return
	}
	g.last = b
	keep := 1 - 1/max(g.window*float64(capacity), 1)
	g.lruHits *= keep
	g.raHits *= keep
	lh := g.lruAccess(g.tab.add(b), capacity)
	rh := g.raAccess(b, now, capacity)
	switch {
	case lh && !rh:
		g.lruHits++
	case rh && !lh:
		g.raHits++
	}
	g.decide()
}

// decide updates the leader from the counters. Leaving LRU needs the
// unguarded simulation's lead to exceed guardMargin plus guardZ standard
// deviations of a tie: with both simulations' hits counted as disjoint
// chances, a tie's lead has a spread of about sqrt(lruHits + raHits) hits,
// so noise alone (a workload on which no ranking beats recency) rarely
// moves the cache away from LRU. Returning to LRU needs only guardMargin.
func (g *raGuard) decide() {
	switch {
	case g.lruHits > g.raHits+guardMargin:
		g.followLRU = true
	case g.followLRU && g.raHits > g.lruHits+guardMargin+guardZ*math.Sqrt(g.lruHits+g.raHits):
		g.followLRU = false
	case !g.followLRU && g.raHits > g.lruHits+guardMargin:
		g.followLRU = false
	}
}

// lruAccess is one access to the simulated LRU cache; it reports a hit.
func (g *raGuard) lruAccess(r *raRec, capacity int) bool {
	t := g.tab
	if r.inLRU {
		g.lruOrder.moveToFront(t, r.idx)
		return true
	}
	r.inLRU = true
	g.lruOrder.pushFront(t, r.idx)
	for g.lruOrder.len() > capacity {
		old := t.rec(g.lruOrder.tail)
		g.lruOrder.remove(t, old.idx)
		old.inLRU = false
		g.addOut(&g.lruOut, old, &old.inLOut, capacity)
	}
	return false
}

// raAccess is one access to the simulated regret_adaptive cache; it
// reports a hit.
func (g *raGuard) raAccess(b *Block, now Time, capacity int) bool {
	r := g.tab.get(b)
	hit := r != nil && r.res[1]
	g.ra.Access(b, now)
	if hit {
		return true
	}
	for g.ra.Len() >= capacity {
		v, ok := g.ra.Victim(now)
		if !ok {
			break
		}
		g.ra.Evict(v, now)
		vr := g.tab.get(v)
		g.addOut(&g.raOut, vr, &vr.inROut, capacity)
	}
	g.ra.Admit(b, now)
	return false
}

// addOut puts r at the front of out (moving it there if it is in; in is
// r's flag for out) and drops the oldest entries beyond limit.
func (g *raGuard) addOut(out *raList, r *raRec, in *bool, limit int) {
	if *in {
		out.remove(g.tab, r.idx)
	}
	*in = true
	out.pushFront(g.tab, r.idx)
	for out.len() > limit {
		g.dropOut(out, g.tab.rec(out.tail))
	}
}

// dropOut removes r from out, which holds it, and releases r when
// nothing else tracks its block.
func (g *raGuard) dropOut(out *raList, r *raRec) {
	out.remove(g.tab, r.idx)
	if out == &g.lruOut {
		r.inLOut = false
	} else {
		r.inROut = false
	}
	g.tab.release(r)
}

// admit notes that b entered the real cache.
// A block admitted without its access just before turns the guard off
// for good and frees the simulations: the daemon's planner admits blocks
// it tracks or promoted, which the policy saw as no access, so there the
// guard costs nothing after the first admission.
func (g *raGuard) admit(b *Block) {
	if g.off {
		return
	}
	if g.last != b {
		g.off = true
		g.free()
	}
	g.last = nil
}

// free drops both simulations' state from the records.
func (g *raGuard) free() {
	t := g.tab
	for g.lruOrder.tail != 0 {
		r := t.rec(g.lruOrder.tail)
		g.lruOrder.remove(t, r.idx)
		r.inLRU = false
		t.release(r)
	}
	for _, out := range []*raList{&g.lruOut, &g.raOut} {
		for out.tail != 0 {
			g.dropOut(out, t.rec(out.tail))
		}
	}
	for _, l := range []*raList{&g.ra.recent, &g.ra.ghostOrder} {
		for l.tail != 0 {
			g.ra.Forget(t.block(l.tail))
		}
	}
	for n := g.ra.memoOrder.back(); n != nil; n = g.ra.memoOrder.back() {
		g.ra.Forget(n.b)
	}
	g.ra = nil
}

// forget drops b from both simulations.
func (g *raGuard) forget(b *Block) {
	if g.off {
		return
	}
	r := g.tab.get(b)
	if r == nil || !r.raUsed() {
		// a record only regret_tiered holds is no record here: the
		// simulation's regret record of b, if any, stays, as it does
		// when there is no record at all
		return
	}
	if r.inLRU {
		g.lruOrder.remove(g.tab, r.idx)
		r.inLRU = false
	}
	if r.inLOut {
		g.lruOut.remove(g.tab, r.idx)
		r.inLOut = false
	}
	if r.inROut {
		g.raOut.remove(g.tab, r.idx)
		r.inROut = false
	}
	g.ra.Forget(b) // releases the record if nothing else holds it
}

// victim returns the block the leader's simulation evicted most recently
// that the real cache still holds and the simulation does not, dropping
// entries that no longer qualify; false when there is none: the real
// cache holds what the leader's simulation holds.
func (g *raGuard) victim() (*Block, bool) {
	if g.off {
		return nil, false
	}
	out := &g.raOut
	if g.followLRU {
		out = &g.lruOut
	}
	for out.head != 0 {
		r := g.tab.rec(out.head)
		held := r.res[1]
		if g.followLRU {
			held = r.inLRU
		}
		if r.res[0] && !held {
			return g.tab.block(r.idx), true
		}
		g.dropOut(out, r)
	}
	return nil, false
}
