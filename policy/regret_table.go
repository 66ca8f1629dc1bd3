package policy

// regret_adaptive keeps all it knows of a block in one record: the real
// cache's state, its guard's two simulations' and the guard's lists of
// their evictions. The record is found through the block's slot (see
// slot.go; a map when another policy holds the slot), so an event costs no
// map lookup in the common case, and records are recycled, so the steady
// state allocates nothing.

// raLink is an element of an raList; at is the step it was linked at
// where the list needs it.
type raLink struct {
	prev, next *raLink
	r          *raRec
	at         int64
}

// raList is a doubly linked list of records with a sentinel; the front is
// the newest insertion.
type raList struct {
	root raLink
	n    int
}

func (l *raList) lazyInit() {
	if l.root.next == nil {
		l.root.next, l.root.prev = &l.root, &l.root
	}
}

func (l *raList) pushFront(k *raLink) {
	l.lazyInit()
	k.prev, k.next = &l.root, l.root.next
	l.root.next.prev = k
	l.root.next = k
	l.n++
}

func (l *raList) pushBack(k *raLink) {
	l.lazyInit()
	k.prev, k.next = l.root.prev, &l.root
	l.root.prev.next = k
	l.root.prev = k
	l.n++
}

func (l *raList) remove(k *raLink) {
	k.prev.next = k.next
	k.next.prev = k.prev
	k.prev, k.next = nil, nil
	l.n--
}

func (l *raList) moveToFront(k *raLink) {
	if l.root.next == k {
		return
	}
	l.remove(k)
	l.pushFront(k)
}

func (l *raList) back() *raLink {
	if l.n == 0 {
		return nil
	}
	return l.root.prev
}

func (l *raList) front() *raLink {
	if l.n == 0 {
		return nil
	}
	return l.root.next
}

func (l *raList) len() int { return l.n }

// raSide is one regret_adaptive cache's state of a block: the real
// cache's (side 0) or the guard's unguarded simulation's (side 1).
type raSide struct {
	ord   raLink // in ordinary while resident and not protected
	rec   raLink // in recent while resident
	ghost raLink // in ghostOrder while a ghost; at: the eviction step
	memo  raLink // in memoOrder while remembered; at: the regret step
	it    item   // in prot while protected

	last  int64 // step of the last access while resident
	glast int64 // the ghost's: step of the last access before the eviction
	dist  int64 // the regret record's reuse distance

	res, prot, expired bool
	isGhost, counted   bool // counted: the eviction counts toward the regretted share
	isMemo             bool
}

func (s *raSide) used() bool { return s.res || s.isGhost || s.isMemo }

// raRec is everything regret_adaptive and its guard know of a block.
type raRec struct {
	b    *Block
	tab  *raTable
	side [2]raSide
	// the guard's: the simulated LRU cache's recency list and the lists
	// of the blocks each simulation evicted
	lru, lruOut, raOut    raLink
	inLRU, inLOut, inROut bool
}

func (r *raRec) used() bool {
	return r.side[0].used() || r.side[1].used() || r.inLRU || r.inLOut || r.inROut
}

// raRecChunk is the number of records a table allocates at once.
const raRecChunk = 64

// raTable finds a block's record: through its slot when the table holds
// it, else through a map. State: one record per block any part tracks,
// plus freed records up to the most tracked at once.
type raTable struct {
	over  map[BlockID]*raRec
	free  []*raRec
	chunk []raRec
	n     int // records in use
}

// get returns b's record, or nil.
func (t *raTable) get(b *Block) *raRec {
	if r, ok := b.slot.(*raRec); ok && r.tab == t && r.b == b {
		return r
	}
	if len(t.over) == 0 {
		return nil
	}
	return t.over[b.ID]
}

// add returns b's record, creating it when there is none.
func (t *raTable) add(b *Block) *raRec {
	if r := t.get(b); r != nil {
		return r
	}
	var r *raRec
	if n := len(t.free); n > 0 {
		r, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if len(t.chunk) == 0 {
			t.chunk = make([]raRec, raRecChunk)
		}
		r, t.chunk = &t.chunk[0], t.chunk[1:]
	}
	r.b, r.tab = b, t
	t.n++
	for i := range r.side {
		s := &r.side[i]
		s.ord.r, s.rec.r, s.ghost.r, s.memo.r = r, r, r, r
		s.it = item{b: b, index: -1}
	}
	r.lru.r, r.lruOut.r, r.raOut.r = r, r, r
	if b.slot == nil {
		b.slot = r
		return r
	}
	if t.over == nil {
		t.over = map[BlockID]*raRec{}
	}
	t.over[b.ID] = r
	return r
}

// release recycles r when no part tracks its block any more.
func (t *raTable) release(r *raRec) {
	if r.used() {
		return
	}
	if b := r.b; b.slot == any(r) {
		b.slot = nil
	} else {
		delete(t.over, b.ID)
	}
	*r = raRec{}
	t.n--
	t.free = append(t.free, r)
}
