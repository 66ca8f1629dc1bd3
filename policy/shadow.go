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
// per-block state in a map, and whether the shadow holds a block is
// written in the copy (see held).
type shadowCache struct {
	pol    Policy
	follow bool // the real cache follows the evictions: keep out
	n      int  // blocks held
	out    idGhosts
	hits   float64
}

// newShadowCache returns a shadow of p; follow says that the real cache
// follows its evictions, which it then keeps (see victim).
func newShadowCache(p Policy, follow bool) *shadowCache {
	s := &shadowCache{pol: p, follow: follow}
	if follow {
		s.out = newIDGhosts()
	}
	return s
}

// access replays one access of c, the shadow's copy of the block, at
// capacity blocks; it reports a hit.
func (s *shadowCache) access(c *Block, now Time, capacity int) bool {
	hit := held(c)
	s.pol.Access(c, now)
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
		if held(v) {
			setHeld(v, false)
			s.n--
		}
		if s.follow {
			s.evicted(v, capacity)
		}
	}
	s.pol.Admit(c, now)
	setHeld(c, true)
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
func (s *shadowCache) update(c, b *Block, old Meta, now Time) {
	u, ok := s.pol.(Updater)
	if !ok {
		return
	}
	if c != nil {
		b = c
	}
	u.Update(b, old, now)
}

// forget drops the block of the shadow's copy c from the shadow.
func (s *shadowCache) forget(c *Block) {
	s.pol.Forget(c)
	if held(c) {
		setHeld(c, false)
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
		if resident(id) && !held(n.b) {
			return id, true
		}
		s.out.drop(id)
	}
	return 0, false
}

// A shadow's copy of a block has the real block's ID and Meta (copied at
// each access and update), and in Next whether the shadow holds it:
// kv_adaptive's experts are online, and online policies never read Next
// (the oracle's next access), so a shadow's policy does not see it, and a
// shadow finds whether it holds its policy's victim without a lookup.
const shadowHeld Time = 1

// held reports whether the shadow holds its copy c.
func held(c *Block) bool { return c.Next == shadowHeld }

// setHeld records whether the shadow holds its copy c.
func setHeld(c *Block, h bool) {
	c.Next = 0
	if h {
		c.Next = shadowHeld
	}
}
