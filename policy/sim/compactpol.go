package sim

// qList is the list of cLRU, cFIFO and cSIEVE.
const qList uint8 = 1

// cLRU is policy.LRU in the compact engine.
type cLRU struct {
	s *store
	l ilist
}

func (p *cLRU) access(i int32) {
	if b := p.s.b; b[i].q == qList {
		p.l.moveToFront(b, i)
	}
}

func (p *cLRU) admit(i int32) { p.l.pushFront(p.s.b, i, qList) }
func (p *cLRU) evict(i int32) { p.forget(i) }

func (p *cLRU) forget(i int32) {
	if b := p.s.b; b[i].q == qList {
		p.l.remove(b, i)
	}
}

func (p *cLRU) victim() (int32, bool) { return p.l.tail, p.l.tail >= 0 }

// cFIFO is policy.FIFO in the compact engine.
type cFIFO struct {
	s *store
	l ilist
}

func (p *cFIFO) access(int32)          {}
func (p *cFIFO) admit(i int32)         { p.l.pushFront(p.s.b, i, qList) }
func (p *cFIFO) evict(i int32)         { p.forget(i) }
func (p *cFIFO) victim() (int32, bool) { return p.l.tail, p.l.tail >= 0 }

func (p *cFIFO) forget(i int32) {
	if b := p.s.b; b[i].q == qList {
		p.l.remove(b, i)
	}
}

// cSIEVE is policy.SIEVE in the compact engine: the hand moves from the
// tail toward the head.
type cSIEVE struct {
	s    *store
	l    ilist
	hand int32 // -1 when at no block
}

func (p *cSIEVE) access(i int32) {
	if b := p.s.b; b[i].q == qList {
		b[i].flags |= fVisited
	}
}

func (p *cSIEVE) admit(i int32) {
	b := p.s.b
	b[i].flags &^= fVisited
	p.l.pushFront(b, i, qList)
}

func (p *cSIEVE) evict(i int32) { p.forget(i) }

func (p *cSIEVE) forget(i int32) {
	b := p.s.b
	if b[i].q != qList {
		return
	}
	if p.hand == i {
		p.hand = b[i].prev
	}
	p.l.remove(b, i)
}

func (p *cSIEVE) victim() (int32, bool) {
	b := p.s.b
	o := p.hand
	if o < 0 {
		o = p.l.tail
	}
	if o < 0 {
		return -1, false
	}
	for b[o].flags&fVisited != 0 {
		b[o].flags &^= fVisited
		if o = b[o].prev; o < 0 {
			o = p.l.tail
		}
	}
	p.hand = o
	return o, true
}
