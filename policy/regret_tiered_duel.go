package policy

import "math"

// regret_tiered's class ranking, the choice between it and the density
// ranking, and the duel of the one chosen with LRU and
// regret_adaptive.

// rtClassList holds blocks in two recency lists, hot and cold (front most
// recent), linked through one link kind of their records.
type rtClassList struct{ hot, cold rtList }

func newRTClassList(kind int) rtClassList {
	return rtClassList{hot: rtList{kind: kind, ends: &rtEnds{}}, cold: rtList{kind: kind, ends: &rtEnds{}}}
}

func (c *rtClassList) len() int { return c.hot.len() + c.cold.len() }

// touch makes record i the most recent block of its class (hot),
// inserting it when it is not in (in false); inHot records the list
// holding it.
func (c *rtClassList) touch(t *rtTable, i uint32, in, inHot *bool, hot bool) {
	if *in {
		c.drop(t, i, in, *inHot)
	}
	l := &c.cold
	if hot {
		l = &c.hot
	}
	l.pushFront(t, i)
	*in, *inHot = true, hot
}

// drop removes record i, which is in the hot list when inHot.
func (c *rtClassList) drop(t *rtTable, i uint32, in *bool, inHot bool) {
	if inHot {
		c.hot.remove(t, i)
	} else {
		c.cold.remove(t, i)
	}
	*in = false
}

// victim returns the least recently read cold block, or the least
// recently read hot one when it lapsed into the cold class and was read
// before the cold one, or when no block is cold; nil when empty.
func (c *rtClassList) victim(p *RegretTiered) *rtRec {
	t := p.tab
	switch {
	case c.hot.tail == 0 && c.cold.tail == 0:
		return nil
	case c.hot.tail == 0:
		return t.rec(c.cold.tail)
	case c.cold.tail == 0:
		return t.rec(c.hot.tail)
	}
	h, cold := t.rec(c.hot.tail), t.rec(c.cold.tail)
	if !p.hot(h) && h.last < cold.last {
		return h
	}
	return cold
}

// rankVictim returns c's victim by the ranking that duels LRU: density
// or class.
func (p *RegretTiered) rankVictim(c *rtClassList) *rtRec {
	if p.dens != nil {
		return p.densityVictim(c)
	}
	return c.victim(p)
}

// duel counts, before r's read updates anything, the hits only one
// simulation had, decays both counters and updates the leader.
func (p *RegretTiered) duel(r *rtRec) {
	keep := 1 - 1/max(p.cfg.Guard*float64(p.cap.get()), 1)
	p.lruHits *= keep
	p.clsHits *= keep
	switch {
	case r.inL && !r.inC:
		p.lruHits++
	case r.inC && !r.inL:
		p.clsHits++
	}
	p.decide()
}

// decide follows the ranking while its lead over LRU exceeds
// guardMargin plus guardZ standard deviations of a tie and, in a fast
// tier run alone, regret_adaptive's lead (as its guard counts it); it
// returns to the inner policy when LRU leads by guardMargin or (run alone)
// regret_adaptive leads the ranking by guardMargin. A tier below the
// fast one starts in the density ranking (Admit) and leaves it only so:
// it evicts rarely, its simulations differ in few hits, and waiting for
// a lead of two deviations there kept LRU's choice of what goes down to
// the slowest tier for the whole run (results/regret/LAB.md).
func (p *RegretTiered) decide() {
	lead := p.clsHits - p.lruHits
	raLead := math.Inf(-1)
	if g := p.inner.guard; g != nil && !g.off && !p.perTier {
		raLead = g.raHits - g.lruHits
	}
	switch {
	case lead < -guardMargin || raLead > lead+guardMargin:
		p.followCls = false
	case !p.followCls && lead > guardMargin+guardZ*math.Sqrt(p.lruHits+p.clsHits) && lead > raLead:
		p.followCls = true
	}
}

// simTouch replays a read in the simulations: a block they hold becomes
// the most recent; one the real cache holds enters them (the real cache
// hit where they missed and would have admitted it).
func (p *RegretTiered) simTouch(r *rtRec) {
	switch {
	case r.inL:
		p.simL.moveToFront(p.tab, r.idx)
	case r.inReal:
		p.simLInsert(r)
	}
	switch {
	case r.inC:
		p.simC.touch(p.tab, r.idx, &r.inC, &r.hotC, p.hot(r))
	case r.inReal:
		p.simCInsert(r)
	}
}

// simInsert adds r to both simulations if they lack it.
func (p *RegretTiered) simInsert(r *rtRec) {
	if !r.inL {
		p.simLInsert(r)
	}
	if !r.inC {
		p.simCInsert(r)
	}
}

func (p *RegretTiered) simLInsert(r *rtRec) {
	t := p.tab
	for p.simL.len() >= p.cap.get() {
		v := t.rec(p.simL.tail)
		p.simL.remove(t, v.idx)
		v.inL = false
		p.settle(v)
	}
	p.unsettle(r)
	p.simL.pushFront(t, r.idx)
	r.inL = true
}

func (p *RegretTiered) simCInsert(r *rtRec) {
	for p.simC.len() >= p.cap.get() {
		v := p.rankVictim(&p.simC)
		p.simC.drop(p.tab, v.idx, &v.inC, v.hotC)
		p.settle(v)
	}
	p.unsettle(r)
	p.simC.touch(p.tab, r.idx, &r.inC, &r.hotC, p.hot(r))
}

// simDrop removes r from both simulations.
func (p *RegretTiered) simDrop(r *rtRec) {
	if r.inL {
		p.simL.remove(p.tab, r.idx)
		r.inL = false
	}
	if r.inC {
		p.simC.drop(p.tab, r.idx, &r.inC, r.hotC)
	}
}
