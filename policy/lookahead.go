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

// Tagged is implemented by policies that keep a caller's tag with each
// resident block and give it back with the victims: a caller that keeps
// its own state of the blocks in a table gives each block's index in it,
// and finds the state of a victim without looking up its ID (at millions
// of blocks, a cache and TLB miss a victim). Blocks admitted with Admit
// have the tag 0. The tag lives in the policy's node (no extra bytes).
type Tagged interface {
	// AdmitTagged is Admit, keeping tag with b.
	AdmitTagged(b *Block, now Time, tag uint32)
	// VictimTagged is Victim, with the victim's tag.
	VictimTagged(now Time) (b *Block, tag uint32, ok bool)
	// AheadTags is Ahead giving the blocks' tags: it appends to dst, and
	// returns, the tags of up to n next victims, in order.
	AheadTags(dst []uint32, n int) []uint32
	// EvictTagged evicts the next victim (the block VictimTagged
	// returns), as Evict would, without reading or writing its Block: a
	// caller demoting thousands of scattered blocks takes no cache miss
	// on them (the block's slot may be left stale, see slot.go).
	EvictTagged(now Time)
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

// AdmitTagged admits b as the most recent block, with tag.
func (p *LRU) AdmitTagged(b *Block, _ Time, tag uint32) {
	n := p.nodes.add(b)
	n.tag = tag
	p.push(n)
}

// VictimTagged returns the least recently used block and its tag.
func (p *LRU) VictimTagged(now Time) (*Block, uint32, bool) {
	if _, ok := p.Victim(now); !ok {
		return nil, 0, false
	}
	n := p.q[p.head] // Victim stopped at its live place
	return n.b, n.tag, true
}

// AheadTags lists the tags of the least recently used blocks, least
// recent first. It reads the first and the last of the fields a victim's
// eviction uses (b and next, see node), so that both lines are fetched
// when they are two.
func (p *LRU) AheadTags(dst []uint32, n int) []uint32 {
	for i := p.head; i < len(p.q) && n > 0; i++ {
		if nd := p.q[i]; nd.at == p.base+Time(i) && nd.b != nil && nd.next != nd {
			dst = append(dst, nd.tag)
			n--
		}
	}
	return dst
}

// AdmitTagged admits b as the newest block, with tag.
func (p *FIFO) AdmitTagged(b *Block, _ Time, tag uint32) {
	n := p.nodes.add(b)
	n.tag = tag
	p.order.pushFront(n)
}

// VictimTagged returns the block admitted longest ago and its tag.
func (p *FIFO) VictimTagged(Time) (*Block, uint32, bool) {
	if n := p.order.back(); n != nil {
		return n.b, n.tag, true
	}
	return nil, 0, false
}

// AheadTags lists the tags of the blocks admitted longest ago, oldest
// first.
func (p *FIFO) AheadTags(dst []uint32, n int) []uint32 {
	for nd := p.order.back(); nd != nil && n > 0; nd = p.order.prevOf(nd) {
		dst = append(dst, nd.tag)
		n--
	}
	return dst
}

// EvictTagged evicts the least recently used block without touching it.
func (p *LRU) EvictTagged(now Time) {
	if _, ok := p.Victim(now); !ok {
		return
	}
	n := p.q[p.head] // Victim stopped at its live place
	p.unplace(n)
	p.nodes.drop(n)
}

// EvictTagged evicts the block admitted longest ago without touching it.
func (p *FIFO) EvictTagged(Time) {
	if n := p.order.back(); n != nil {
		p.order.remove(n)
		p.nodes.drop(n)
	}
}
