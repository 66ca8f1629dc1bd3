package policy

// shadowCache simulates a cache of a fixed number of blocks managed by one
// policy, holding no data: it sees the real cache's accesses, admits every
// missed block and evicts the policy's victims. It counts its hits with an
// exponentially decaying counter and, when the real cache follows its
// evictions (follow), remembers the blocks it evicted, newest first, at
// most capacity of them, so a real cache following it can evict the same
// blocks.
//
// The shadow's policy sees the shadow's own copy of each block (see
// shadowCopies), never the real *Block: the copy's slot is the shadow
// policy's alone, so neither it nor the real cache's experts keep their
// per-block state in a map, and whether the shadow holds a block is a
// field of the copy.
type shadowCache struct {
	pol    Policy
	copies *shadowCopies
	i      int  // the shadow's copy in each block's copies
	follow bool // the real cache follows the evictions: keep out
	n      int  // blocks held
	out    idGhosts
	hits   float64
}

func newShadowCache(p Policy, copies *shadowCopies, i int, follow bool) *shadowCache {
	s := &shadowCache{pol: p, copies: copies, i: i, follow: follow}
	if follow {
		s.out = newIDGhosts()
	}
	return s
}

// access replays one access of c, the shadow's copy of the block, at
// capacity blocks; it reports a hit.
func (s *shadowCache) access(c *shadowBlock, now Time, capacity int) bool {
	hit := c.held
	s.pol.Access(&c.Block, now)
	if hit {
		s.hits++
		return true
	}
	for s.n >= capacity {
		v, ok := s.pol.Victim(now)
		if !ok {
			break
		}
		s.pol.Evict(v, now)
		if vc := s.copies.of(v, s.i); vc != nil && vc.held {
			vc.held = false
			s.n--
		}
		if s.follow {
			s.evicted(v, capacity)
		}
	}
	s.pol.Admit(&c.Block, now)
	c.held = true
	s.n++
	if s.follow {
		s.out.drop(c.ID)
	}
	return false
}

// evicted records v as the newest eviction, at most capacity of them; the
// node of the oldest one dropped is reused, so a shadow in its steady
// state allocates nothing.
func (s *shadowCache) evicted(v *Block, capacity int) {
	var n *node
	for s.out.order.len() >= max(capacity, 1) {
		n, _ = s.out.take(s.out.order.back().b.ID)
	}
	if n == nil {
		n = &node{}
	}
	*n = node{b: v}
	s.out.add(n, capacity)
}

// update forwards a metadata change to the shadow's policy: of the
// shadow's copy c (its Meta already the new one), or of the real block b
// if the shadows have no copy of it.
func (s *shadowCache) update(c *shadowBlock, b *Block, old Meta, now Time) {
	u, ok := s.pol.(Updater)
	if !ok {
		return
	}
	if c != nil {
		b = &c.Block
	}
	u.Update(b, old, now)
}

// forget drops the block of the shadow's copy c from the shadow.
func (s *shadowCache) forget(c *shadowBlock) {
	s.pol.Forget(&c.Block)
	if c.held {
		c.held = false
		s.n--
	}
	if s.follow {
		s.out.drop(c.ID)
	}
}

// victim returns the ID of the block the shadow evicted most recently that
// the real cache still holds (resident reports that) and the shadow does
// not, dropping entries that no longer qualify; false when there is none.
func (s *shadowCache) victim(resident func(BlockID) bool) (BlockID, bool) {
	for n := s.out.order.front(); n != nil; n = s.out.order.front() {
		id := n.b.ID
		if c := s.copies.of(n.b, s.i); resident(id) && (c == nil || !c.held) {
			return id, true
		}
		s.out.drop(id)
	}
	return 0, false
}

// shadowBlock is one shadow's copy of a block: the Block its policy
// tracks (ID, Meta and Next copied from the real block at each access and
// update) and whether the shadow holds it.
type shadowBlock struct {
	Block
	held bool
}

// shadowCopies holds the shadows' copies of the blocks they saw (with
// sampling, the sampled ones), k per block (one per shadow), found by ID:
// one map probe per event of a block the shadows see, where each shadow's
// policy, its held set and its evictions each probed their own map when
// the shadows shared the real blocks (whose slot the real cache's expert
// holds). A copy is dropped when its block is forgotten and never reused
// for another block, so a shadow policy holding on to a forgotten *Block
// (reuse_req's current request) sees it keep its ID, as a Block the caller
// does not reuse does. State: k copies per block the shadows saw and that
// is not forgotten.
type shadowCopies struct {
	m map[BlockID][]shadowBlock
	k int
}

func newShadowCopies(k int) *shadowCopies {
	return &shadowCopies{m: map[BlockID][]shadowBlock{}, k: k}
}

// sync returns the copies of b, made on first sight, with b's ID, Meta
// and Next.
func (c *shadowCopies) sync(b *Block) []shadowBlock {
	cs, ok := c.m[b.ID]
	if !ok {
		cs = make([]shadowBlock, c.k)
		c.m[b.ID] = cs
	}
	for i := range cs {
		cs[i].ID, cs[i].Meta, cs[i].Next = b.ID, b.Meta, b.Next
	}
	return cs
}

// get returns the copies of the block with id, nil if there are none.
func (c *shadowCopies) get(id BlockID) []shadowBlock { return c.m[id] }

// of returns shadow i's copy of the block whose copy (for shadow i) is v,
// nil if v is no such copy.
func (c *shadowCopies) of(v *Block, i int) *shadowBlock {
	if cs := c.m[v.ID]; cs != nil && &cs[i].Block == v {
		return &cs[i]
	}
	return nil
}

// drop forgets the copies of the block with id.
func (c *shadowCopies) drop(id BlockID) { delete(c.m, id) }
