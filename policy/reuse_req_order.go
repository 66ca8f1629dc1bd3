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
		p.leaveGhost(a, reqGhost{step: a.step, class: c})
		if e, ok := p.entries.get(a.b); ok && !e.gone && e.it.tie == a.step {
			e.class = c
			p.place(e, a.step)
			p.h.fix(&e.it)
		}
		a.b = nil
	}
	p.req.pending = p.req.pending[:0]
	p.req.newBlks = 0
	if len(p.req.last) > 0 {
		clear(p.req.last)
	}
	clear(p.req.forgot)
}

// leaveGhost records g as the ghost of a's block: in its entry (kept, gone,
// if the block is not resident), or by ID if the block was forgotten
// during the request.
func (p *ReuseReq) leaveGhost(a *reqAccess, g reqGhost) {
	if _, forgot := p.req.forgot[a.b]; forgot {
		if p.orphans == nil {
			p.orphans = map[BlockID]reqGhost{}
		}
		p.orphans[a.id] = g
		return
	}
	e, ok := p.entries.get(a.b)
	if !ok {
		e = p.entries.add(a.b)
		e.gone = true
		p.idle++
	}
	p.ghosts.put(e, g, p.sweeps)
	if len(p.orphans) > 0 {
		delete(p.orphans, a.id)
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
	e, ok := p.entries.get(b)
	if ok && e.gone { // kept for its ghost, which stays
		e.it, e.class, e.gone = item{b: b, owner: e.it.owner}, 0, false
		p.idle--
	} else {
		e = p.entries.add(b)
	}
	e.it.freq = 1
	reads := max(int64(b.Meta.RefCount), 1)
	e.class = reqClass(frontier(&b.Meta), reads, p.req.newBlks)
	p.place(e, p.clock)
	p.push(e)
}

// Forget removes b and its ghost. If the current request read b, the
// ghost its end leaves is kept by ID (see leaveGhost).
func (p *ReuseReq) Forget(b *Block) {
	if e, ok := p.entries.get(b); ok {
		p.ghosts.del(e)
	}
	p.drop(b)
	if len(p.orphans) > 0 {
		delete(p.orphans, b.ID)
	}
	if _, ok := p.req.lastOf(b.ID); ok {
		if p.req.forgot == nil {
			p.req.forgot = map[*Block]struct{}{}
		}
		p.req.forgot[b] = struct{}{}
	}
}

// reqScan is the most accesses of a request found by scanning pending:
// most requests are shorter, and a scan of a few entries costs less than
// writing and clearing a map per request.
const reqScan = 16

// lastOf returns the index in pending of id's last access, if any.
func (r *reqState) lastOf(id BlockID) (int, bool) {
	if len(r.pending) > reqScan {
		i, ok := r.last[id]
		return i, ok
	}
	for i := len(r.pending) - 1; i >= 0; i-- {
		if r.pending[i].id == id {
			return i, true
		}
	}
	return 0, false
}

// add appends an access, indexing pending once it outgrows a scan.
func (r *reqState) add(a reqAccess) {
	r.pending = append(r.pending, a)
	switch n := len(r.pending); {
	case n == reqScan+1:
		for i := range r.pending {
			r.last[r.pending[i].id] = i
		}
	case n > reqScan+1:
		r.last[a.id] = n - 1
	}
}
