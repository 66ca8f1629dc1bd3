package sim

import "github.com/kvtier/kvtier/policy"

// S3-FIFO's lists in cblk.q.
const (
	qSmall uint8 = iota + 1
	qMain
	qGhost
)

// cS3FIFO is policy.S3FIFO in the compact engine. A block is in at most
// one of S, M and the ghost FIFO G; freq is its 2-bit hit counter.
type cS3FIFO struct {
	s                  *store
	small, main, ghost ilist
	cap                capBlocks
	smallShare         float64
	threshold          uint8
}

func newCS3FIFO(s *store, small float64, threshold int, env policy.Env) *cS3FIFO {
	return &cS3FIFO{s: s, small: newIList(), main: newIList(), ghost: newIList(),
		cap: capBlocks{fixed: env.CapacityBlocks}, smallShare: small, threshold: uint8(threshold)}
}

func (p *cS3FIFO) queue(q uint8) *ilist {
	if q == qMain {
		return &p.main
	}
	return &p.small
}

func (p *cS3FIFO) access(i int32) {
	x := &p.s.b[i]
	if (x.q == qSmall || x.q == qMain) && x.freq < 3 {
		x.freq++
	}
}

func (p *cS3FIFO) admit(i int32) {
	b := p.s.b
	q := qSmall
	if b[i].q == qGhost {
		p.ghost.remove(b, i)
		q = qMain
	}
	b[i].freq = 0
	p.queue(q).pushFront(b, i, q)
	p.cap.observe(p.small.n + p.main.n)
}

func (p *cS3FIFO) evict(i int32) {
	b := p.s.b
	q := b[i].q
	if q != qSmall && q != qMain {
		return
	}
	p.queue(q).remove(b, i)
	if q != qSmall {
		return
	}
	b[i].freq = 0
	p.ghost.pushFront(b, i, qGhost)
	limit := max(p.cap.get()-p.cap.share(p.smallShare), 1)
	for p.ghost.n > limit {
		p.ghost.remove(b, p.ghost.tail)
	}
}

func (p *cS3FIFO) forget(i int32) {
	b := p.s.b
	switch b[i].q {
	case qSmall, qMain:
		p.queue(b[i].q).remove(b, i)
	case qGhost:
		p.ghost.remove(b, i)
	}
}

func (p *cS3FIFO) victim() (int32, bool) {
	b := p.s.b
	target := p.cap.share(p.smallShare)
	for {
		if p.small.n > 0 && (p.small.n >= target || p.main.n == 0) {
			t := p.small.tail
			if b[t].freq < p.threshold {
				return t, true
			}
			p.small.remove(b, t)
			b[t].freq = 0
			p.main.pushFront(b, t, qMain)
			continue
		}
		t := p.main.tail
		if t < 0 {
			return -1, false
		}
		if b[t].freq == 0 {
			return t, true
		}
		b[t].freq--
		p.main.moveToFront(b, t)
	}
}
