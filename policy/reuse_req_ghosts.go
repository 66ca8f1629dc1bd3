package policy

// reqGhost is the class and step of a block's last access.
type reqGhost struct {
	step  int64
	class uint8
}

// reqGhostSlot is a ghost kept in reuse_req's slab: the entry holding it
// (its ghost field is the slot's index), the step and class of the access,
// the sweep count when it was written, and its neighbours in the order of
// writes (indexes; slot 0 is the list's root).
type reqGhostSlot struct {
	e          *rlEntry
	step       int64
	prev, next int32
	sweeps     uint32
	class      uint8
}

// reqGhostPage is the number of slots reqGhosts allocates at once: the
// slab grows by pages, never copying the slots it holds.
const reqGhostPage = 4096

// reqGhosts holds reuse_req's ghosts of tracked blocks in a slab of
// slots, linked in the order they were written (which is the order of
// their steps), with freed slots recycled. A block's entry points to its
// slot, so reading a ghost costs no map probe: the entry is already at
// hand. Ghosts die as the old map's sweep deleted them (see dead) and are
// reclaimed from the oldest end a few per access, so no call sweeps them
// all. State: 32 bytes per ghost, plus the entry of a block no longer
// resident that has one (ReuseReq keeps it for the ghost).
type reqGhosts struct {
	pages [][]reqGhostSlot
	n     int32 // slots handed out so far; slot 0 is the root
	free  int32 // first free slot (linked by next), 0 none
}

// at returns slot i.
func (g *reqGhosts) at(i int32) *reqGhostSlot {
	return &g.pages[i/reqGhostPage][i%reqGhostPage]
}

// put records a ghost for e (replacing the one it has) as the newest.
func (g *reqGhosts) put(e *rlEntry, x reqGhost, sweeps uint32) {
	if e.ghost != 0 {
		g.del(e)
	}
	if g.n == 0 {
		g.n = 1 // the root
	}
	i := g.free
	if i != 0 {
		g.free = g.at(i).next
	} else {
		if g.n%reqGhostPage == 0 || len(g.pages) == 0 {
			g.pages = append(g.pages, make([]reqGhostSlot, reqGhostPage))
		}
		i = g.n
		g.n++
	}
	root := g.at(0)
	last := root.prev
	*g.at(i) = reqGhostSlot{e: e, step: x.step, class: x.class, sweeps: sweeps, prev: last}
	g.at(last).next = i
	root.prev = i
	e.ghost = i
}

// get returns e's ghost, if it has one.
func (g *reqGhosts) get(e *rlEntry) (reqGhostSlot, bool) {
	if e.ghost == 0 {
		return reqGhostSlot{}, false
	}
	return *g.at(e.ghost), true
}

// del removes e's ghost, if it has one, and frees its slot.
func (g *reqGhosts) del(e *rlEntry) {
	i := e.ghost
	if i == 0 {
		return
	}
	s := g.at(i)
	g.at(s.prev).next = s.next
	g.at(s.next).prev = s.prev
	*s = reqGhostSlot{next: g.free}
	g.free = i
	e.ghost = 0
}

// oldest returns the entry of the oldest ghost, nil when there is none.
func (g *reqGhosts) oldest() *rlEntry {
	if g.n == 0 || g.at(0).next == 0 {
		return nil
	}
	return g.at(g.at(0).next).e
}

// reqExpirePerAccess is how many dead ghosts an access reclaims at most:
// more than the one ghost an access writes, so they never pile up.
const reqExpirePerAccess = 2

// dead reports whether the ghost s has expired: the old map was swept
// every horizon capacities of accesses, deleting the ghosts whose step
// was older than the horizon then. The sweeps' cutoffs (step of the
// sweep minus the horizon) only grow, since sweeps are a horizon apart and
// the capacity never shrinks, so a ghost is dead when a sweep came after
// it was written and its step is below the latest cutoff. (A slot's sweep
// count is never ahead of the policy's, and a dead ghost is reclaimed
// long before the uint32 count wraps around.)
func (p *ReuseReq) dead(s *reqGhostSlot) bool {
	return s.sweeps != p.sweeps && s.step < p.cutoff
}

// expire reclaims up to reqExpirePerAccess dead ghosts, oldest first,
// with the entries that were kept only for them.
func (p *ReuseReq) expire() {
	for range reqExpirePerAccess {
		e := p.ghosts.oldest()
		if e == nil || !p.dead(p.ghosts.at(e.ghost)) {
			return
		}
		p.ghosts.del(e)
		p.release(e)
	}
}

// sweep moves the cutoff every horizon capacities of accesses and deletes
// the expired ghosts of forgotten blocks (a small map).
func (p *ReuseReq) sweep() {
	h := int64(p.horizon * float64(p.cap.get()))
	if p.clock-p.swept < max(h, 1) {
		return
	}
	p.swept = p.clock
	p.sweeps++
	p.cutoff = p.clock - h
	for id, g := range p.orphans {
		if p.clock-g.step > h {
			delete(p.orphans, id)
		}
	}
}

// takeGhost reads and deletes b's ghost (its entry's, or for a block
// forgotten before its request ended, the orphans' one by ID); a dead
// ghost is deleted but not returned.
func (p *ReuseReq) takeGhost(b *Block, e *rlEntry) (reqGhost, bool) {
	if e != nil {
		if s, ok := p.ghosts.get(e); ok {
			p.ghosts.del(e)
			p.release(e)
			return reqGhost{step: s.step, class: s.class}, !p.dead(&s)
		}
	}
	if len(p.orphans) == 0 {
		return reqGhost{}, false
	}
	g, ok := p.orphans[b.ID]
	delete(p.orphans, b.ID)
	return g, ok
}

// release stops tracking e if it was kept only for its ghost.
func (p *ReuseReq) release(e *rlEntry) {
	if e.gone && e.ghost == 0 {
		p.entries.remove(e)
		p.idle--
	}
}
