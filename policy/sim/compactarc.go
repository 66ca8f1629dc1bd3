package sim

import "github.com/kvtier/kvtier/policy"

// ARC's lists in cblk.q (qNone is a block ARC does not track).
const (
	qT1 uint8 = iota + 1 // resident, seen once since admission
	qT2                  // resident, seen at least twice
	qB1                  // ghost of a block evicted from T1
	qB2                  // ghost of a block evicted from T2
)

// cARC is policy.ARC in the compact engine; the ghost-hit mark is
// fVisited.
type cARC struct {
	s          *store
	lists      [qB2 + 1]ilist // index 0 unused
	p          float64
	cap        capBlocks
	incomingB2 bool
}

func newCARC(s *store, env policy.Env) *cARC {
	p := &cARC{s: s, cap: capBlocks{fixed: env.CapacityBlocks}}
	for i := range p.lists {
		p.lists[i] = newIList()
	}
	return p
}

func (p *cARC) len() int { return p.lists[qT1].n + p.lists[qT2].n }

// move puts i, which list q holds, at the MRU end of list to.
func (p *cARC) move(b []cblk, i int32, to uint8) {
	p.lists[b[i].q].remove(b, i)
	p.lists[to].pushFront(b, i, to)
}

func (p *cARC) access(i int32) {
	b := p.s.b
	x := &b[i]
	switch x.q {
	case qNone:
		p.incomingB2 = false
		return
	case qT1, qT2:
		p.move(b, i, qT2)
		p.incomingB2 = false
		return
	}
	p.incomingB2 = x.q == qB2
	if x.flags&fVisited != 0 {
		return
	}
	x.flags |= fVisited
	c := float64(p.cap.get())
	b1, b2 := float64(p.lists[qB1].n), float64(p.lists[qB2].n)
	if x.q == qB1 {
		p.p = min(p.p+max(1, b2/b1), c)
	} else {
		p.p = max(p.p-max(1, b1/b2), 0)
	}
}

func (p *cARC) admit(i int32) {
	b := p.s.b
	switch b[i].q {
	case qNone:
		b[i].flags &^= fVisited
		p.lists[qT1].pushFront(b, i, qT1)
	case qB1, qB2:
		b[i].flags &^= fVisited
		p.move(b, i, qT2)
	}
	p.incomingB2 = false
	p.cap.observe(p.len())
	p.trim()
}

func (p *cARC) evict(i int32) {
	b := p.s.b
	switch b[i].q {
	case qT1:
		p.move(b, i, qB1)
	case qT2:
		p.move(b, i, qB2)
	default:
		return
	}
	b[i].flags &^= fVisited
	p.trim()
}

// trim drops the oldest ghosts until the directory bounds hold.
func (p *cARC) trim() {
	b := p.s.b
	c := p.cap.get()
	t1, t2, b1, b2 := &p.lists[qT1], &p.lists[qT2], &p.lists[qB1], &p.lists[qB2]
	for b1.n > 0 && t1.n+b1.n > c {
		b1.remove(b, b1.tail)
	}
	for t1.n+t2.n+b1.n+b2.n > 2*c {
		switch {
		case b2.n > 0:
			b2.remove(b, b2.tail)
		case b1.n > 0:
			b1.remove(b, b1.tail)
		default:
			return
		}
	}
}

func (p *cARC) forget(i int32) {
	if b := p.s.b; b[i].q != qNone {
		p.lists[b[i].q].remove(b, i)
	}
}

func (p *cARC) victim() (int32, bool) {
	t1, t2 := &p.lists[qT1], &p.lists[qT2]
	n1 := float64(t1.n)
	if t1.n > 0 && (n1 > p.p || (p.incomingB2 && n1 == p.p) || t2.n == 0) {
		return t1.tail, true
	}
	if t2.n > 0 {
		return t2.tail, true
	}
	return -1, false
}
