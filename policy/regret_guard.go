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

	lru      map[BlockID]*node
	lruOrder list // front is the most recent
	ra       *RegretAdaptive

	// blocks each simulation evicted, newest at the front, at most the
	// capacity of them: the real cache evicts these first while they are
	// resident there, so it converges to the leader's simulated contents
	lruOut, raOut idGhosts

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

func newRAGuard(c RegretAdaptiveConfig, env Env) *raGuard {
	inner := c
	inner.Guard = 0
	return &raGuard{window: c.Guard, lru: map[BlockID]*node{}, ra: NewRegretAdaptive(inner, env),
		lruOut: newIDGhosts(), raOut: newIDGhosts()}
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
	lh, rh := g.lruAccess(b, capacity), g.raAccess(b, now, capacity)
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
func (g *raGuard) lruAccess(b *Block, capacity int) bool {
	if n, ok := g.lru[b.ID]; ok {
		g.lruOrder.moveToFront(n)
		return true
	}
	n := &node{b: b}
	g.lru[b.ID] = n
	g.lruOrder.pushFront(n)
	for g.lruOrder.len() > capacity {
		old := g.lruOrder.back()
		g.lruOrder.remove(old)
		delete(g.lru, old.b.ID)
		g.lruOut.add(&node{b: old.b}, capacity)
	}
	return false
}

// raAccess is one access to the simulated regret_adaptive cache; it
// reports a hit.
func (g *raGuard) raAccess(b *Block, now Time, capacity int) bool {
	_, hit := g.ra.res[b.ID]
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
		g.raOut.add(&node{b: v}, capacity)
	}
	g.ra.Admit(b, now)
	return false
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
		g.lru, g.lruOrder, g.ra = nil, list{}, nil
		g.lruOut, g.raOut = idGhosts{}, idGhosts{}
	}
	g.last = nil
}

// forget drops b from both simulations.
func (g *raGuard) forget(b *Block) {
	if g.off {
		return
	}
	if n, ok := g.lru[b.ID]; ok {
		g.lruOrder.remove(n)
		delete(g.lru, b.ID)
	}
	g.ra.Forget(b)
	g.lruOut.drop(b.ID)
	g.raOut.drop(b.ID)
}

// victim returns the block the leader's simulation evicted most recently
// that the real cache still holds (resident reports that) and the
// simulation does not, dropping entries that no longer qualify; false when
// there is none: the real cache holds what the leader's simulation holds.
func (g *raGuard) victim(resident func(BlockID) bool) (*Block, bool) {
	if g.off {
		return nil, false
	}
	out, held := &g.raOut, func(id BlockID) bool { _, ok := g.ra.res[id]; return ok }
	if g.followLRU {
		out, held = &g.lruOut, func(id BlockID) bool { _, ok := g.lru[id]; return ok }
	}
	for n := out.order.front(); n != nil; n = out.order.front() {
		if resident(n.b.ID) && !held(n.b.ID) {
			return n.b, true
		}
		out.drop(n.b.ID)
	}
	return nil, false
}
