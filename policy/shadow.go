package policy

// shadowCache simulates a cache of a fixed number of blocks managed by one
// policy, holding no data: it sees the real cache's accesses, admits every
// missed block and evicts the policy's victims. It counts its hits with an
// exponentially decaying counter and remembers the blocks it evicted,
// newest first, at most capacity of them, so a real cache following it
// can evict the same blocks.
type shadowCache struct {
	pol  Policy
	held map[BlockID]*Block
	out  idGhosts
	hits float64
}

func newShadowCache(p Policy) *shadowCache {
	return &shadowCache{pol: p, held: map[BlockID]*Block{}, out: newIDGhosts()}
}

// access replays one access at capacity blocks; it reports a hit.
func (s *shadowCache) access(b *Block, now Time, capacity int) bool {
	_, hit := s.held[b.ID]
	s.pol.Access(b, now)
	if hit {
		s.hits++
		return true
	}
	for len(s.held) >= capacity {
		v, ok := s.pol.Victim(now)
		if !ok {
			break
		}
		s.pol.Evict(v, now)
		delete(s.held, v.ID)
		s.evicted(v, capacity)
	}
	s.pol.Admit(b, now)
	s.held[b.ID] = b
	s.out.drop(b.ID)
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

// update forwards a metadata change to the shadow's policy.
func (s *shadowCache) update(b *Block, old Meta, now Time) {
	if u, ok := s.pol.(Updater); ok {
		u.Update(b, old, now)
	}
}

// forget drops b from the shadow.
func (s *shadowCache) forget(b *Block) {
	s.pol.Forget(b)
	delete(s.held, b.ID)
	s.out.drop(b.ID)
}

// drop forgets every block the shadow holds or remembers as evicted, so
// that no block's slot keeps the state of a shadow being discarded.
func (s *shadowCache) drop() {
	for _, b := range s.held {
		s.pol.Forget(b)
	}
	for n := s.out.order.front(); n != nil; n = s.out.order.front() {
		s.pol.Forget(n.b)
		s.out.drop(n.b.ID)
	}
	clear(s.held)
}

// victim returns the block the shadow evicted most recently that the real
// cache still holds (resident reports that) and the shadow does not,
// dropping entries that no longer qualify; false when there is none.
func (s *shadowCache) victim(resident func(BlockID) bool) (*Block, bool) {
	for n := s.out.order.front(); n != nil; n = s.out.order.front() {
		if _, held := s.held[n.b.ID]; resident(n.b.ID) && !held {
			return n.b, true
		}
		s.out.drop(n.b.ID)
	}
	return nil, false
}
