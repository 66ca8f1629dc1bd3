package policy

// finish ends the current request: each access is counted in its final
// class (as a reuse too if the request read its block again), the last
// access of each block leaves its ghost, and re-keys the block if that is
// still resident and not read since.
func (p *ReuseReq) finish() {
	for i := range p.req.pending {
		a := &p.req.pending[i]
		c := reqClass(a.front, a.reads, p.req.newBlks)
		p.total[c]++
		p.sumT++
		if a.reused {
			p.reuse[c]++
			p.sumR++
		}
		if a.b.ID != a.id || a.reused {
			a.b = nil
			continue // forgotten and reused meanwhile, or read again later in the request
		}
		p.ghosts[a.id] = reqGhost{step: a.step, class: c}
		if e, ok := p.entries.get(a.b); ok && e.it.tie == a.step {
			e.class = c
			p.place(e, a.step)
			p.h.fix(&e.it)
		}
		a.b = nil
	}
	p.req.pending = p.req.pending[:0]
	p.req.newBlks = 0
	clear(p.req.last)
}

// sweep drops the ghosts older than the horizon, every horizon
// capacities of accesses (so the map holds at most two horizons of
// accesses' blocks).
func (p *ReuseReq) sweep() {
	h := int64(p.horizon * float64(p.cap.get()))
	if p.clock-p.swept < max(h, 1) {
		return
	}
	p.swept = p.clock
	for id, g := range p.ghosts {
		if p.clock-g.step > h {
			delete(p.ghosts, id)
		}
	}
}

// place sets e's key from the step of its access, E and its class.
func (p *ReuseReq) place(e *rlEntry, step int64) {
	pc, all := p.Prob(int(e.class))
	e.it.last = step
	e.it.key = float64(step) + p.evAge.get(p.cap.get())*pc/all
	e.it.tie = step
}

// Admit inserts b with the key of an access now, in the class its
// request so far gives it.
func (p *ReuseReq) Admit(b *Block, _ Time) {
	e := p.entries.add(b)
	e.it.freq = 1
	reads := max(int64(b.Meta.RefCount), 1)
	e.class = reqClass(frontier(&b.Meta), reads, p.req.newBlks)
	p.place(e, p.clock)
	p.push(e)
}

// Forget removes b and its ghost.
func (p *ReuseReq) Forget(b *Block) {
	p.drop(b)
	delete(p.ghosts, b.ID)
}
