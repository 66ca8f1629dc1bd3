package policy

// Lookahead is implemented by policies that can list their next victims
// cheaply, so that a caller about to evict many blocks can fetch its own
// state of them ahead (at millions of blocks, each block's state is a
// cache miss, and misses taken together overlap). Ahead appends to dst,
// and returns, up to n resident blocks in the order Victim would return
// them if each were evicted in turn; it changes nothing. The list is a
// hint: a caller decides with Victim, as without it.
type Lookahead interface {
	Ahead(dst []*Block, n int) []*Block
}

// ahead appends up to n blocks of l from its back (oldest first).
func (l *list) ahead(dst []*Block, n int) []*Block {
	for nd := l.back(); nd != nil && n > 0; nd = l.prevOf(nd) {
		dst = append(dst, nd.b)
		n--
	}
	return dst
}

// Ahead lists the least recently used blocks, least recent first. Its
// loads do not depend on one another (the queue is read in order), so
// their cache misses overlap.
func (p *LRU) Ahead(dst []*Block, n int) []*Block {
	for i := p.head; i < len(p.q) && n > 0; i++ {
		if nd := p.q[i]; nd.at == p.base+Time(i) {
			dst = append(dst, nd.b)
			n--
		}
	}
	return dst
}

// Ahead lists the blocks admitted longest ago, oldest first.
func (p *FIFO) Ahead(dst []*Block, n int) []*Block { return p.order.ahead(dst, n) }
