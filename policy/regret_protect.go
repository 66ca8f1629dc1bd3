package policy

// regret_adaptive's protections and the expiry of its ghosts, regret
// records and protections.

// expire drops ghosts older than Horizon, regret records older than Memory
// and protections that ran out (those go to the LRU end).
func (p *RegretAdaptive) expire() {
	t, sd := p.tab, p.side
	for i := p.ghostOrder.tail; i != 0 && p.clock-t.rec(i).ghostAt[sd] > int64(p.cfg.Horizon); i = p.ghostOrder.tail {
		p.ghostOrder.remove(t, i)
		r := t.rec(i)
		r.isGhost[sd] = false
		t.release(r)
	}
	for n := p.memoOrder.back(); n != nil && p.clock-n.at > int64(p.cfg.Memory); n = p.memoOrder.back() {
		p.memoOrder.remove(n)
		delete(p.memo, n.b.ID)
	}
	for it := p.prot.min(); it != nil && it.key < float64(p.clock); it = p.prot.min() {
		r := t.rec(uint32(it.last))
		p.unprotect(r)
		r.expired[sd] = true
		p.ordinary.pushBack(t, r.idx)
	}
}

func (p *RegretAdaptive) unprotect(r *raRec) {
	it := p.items[r.idx]
	p.prot.remove(it)
	delete(p.items, r.idx)
	p.spare = append(p.spare, it)
	r.prot[p.side] = false
}

// protect makes r protected until dist x TTL steps from now.
func (p *RegretAdaptive) protect(r *raRec, dist int64) {
	key := float64(p.clock) + p.cfg.TTL*float64(max(dist, 1))
	p.tick++
	if r.prot[p.side] {
		it := p.items[r.idx]
		it.key, it.tie = key, p.tick
		p.prot.fix(it)
		return
	}
	var it *item
	if n := len(p.spare); n > 0 {
		it, p.spare = p.spare[n-1], p.spare[:n-1]
	} else {
		it = new(item)
	}
	*it = item{b: p.tab.block(r.idx), key: key, tie: p.tick, index: -1, last: int64(r.idx)}
	p.items[r.idx] = it
	r.prot[p.side] = true
	p.prot.push(it)
}

// room reports whether one more block may be protected.
func (p *RegretAdaptive) room() bool {
	c := p.cap.get()
	limit := int(p.cfg.Protect*float64(c) + 0.5)
	if p.sweeping {
		limit = c - 1
	}
	return p.nprot() < min(limit, c-1)
}
