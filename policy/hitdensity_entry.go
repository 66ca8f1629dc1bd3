package policy

// kvEntry is the state of one block hit_density tracks: a resident block
// or a ghost (a sampled evicted block followed until it returns or
// expires). It is found through the block's slot (entryTable) and fits a
// cache line.
type kvEntry struct {
	b          *Block
	owner      *kvEntries // the table holding it
	prev, next *kvEntry   // a ghost's neighbours in HitDensity.gorder
	at         int64      // a ghost's lifetime start
	gap        int64      // age at the last hit; 0 none
	idx        int32      // index of its kvSlot in HitDensity.res; -1 for a ghost
	reads      int32      // accesses while tracked, at least 1
	prefix     int32      // shared blocks before this one in its run at its last access
	class      uint8      // a ghost's class
}

// kvEntries holds the kvEntries of hit_density.
type kvEntries = entryTable[kvEntry, *kvEntry]

// kvEntry's block is b and its table owner (see entryTable).
func (e *kvEntry) slotBlock() *Block { return e.b }
func (e *kvEntry) slotOwner() any    { return e.owner }
func (e *kvEntry) setSlot(b *Block, owner any) {
	e.b = b
	e.owner, _ = owner.(*kvEntries)
}

// kvGhosts is a doubly linked list of ghost entries with a sentinel, the
// newest at the front.
type kvGhosts struct {
	root kvEntry
	n    int
}

// pushFront inserts e at the front.
func (l *kvGhosts) pushFront(e *kvEntry) {
	if l.root.next == nil {
		l.root.next, l.root.prev = &l.root, &l.root
	}
	e.prev, e.next = &l.root, l.root.next
	l.root.next.prev = e
	l.root.next = e
	l.n++
}

// remove unlinks e, which must be in l.
func (l *kvGhosts) remove(e *kvEntry) {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
	l.n--
}

// back returns the oldest ghost or nil.
func (l *kvGhosts) back() *kvEntry {
	if l.n == 0 {
		return nil
	}
	return l.root.prev
}

// len returns the number of ghosts.
func (l *kvGhosts) len() int { return l.n }

// reserve allocates the slots and entries of n residents at once; on an
// empty policy only (kv_adaptive moving its residents to this expert).
func (p *HitDensity) reserve(n int) {
	if len(p.res) > 0 || n <= 0 {
		return
	}
	p.res = make([]kvSlot, 0, n)
	p.entries.reserve(n)
}

// adopt takes over what another hit_density instance (a shadow of the
// same cache that saw one access in scale) learned.
func (p *HitDensity) adopt(from Policy, scale int64) {
	if src, ok := from.(*HitDensity); ok {
		p.model.adopt(&src.model, scale)
	}
}
