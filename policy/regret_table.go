package policy

// regret_adaptive keeps all it knows of a block in one record: the real
// cache's state, its guard's two simulations' and the guard's lists of
// their evictions. Records live in chunks that hold no pointers (lists
// link records by index), so the garbage collector never scans them, and
// a record is 128 bytes, the fields every resident block uses in its first
// two cache lines (a regret record, rare and at most Memory of them, is
// kept apart, by block ID): at a million residents an event touches few
// cache lines. A record is found through the block's slot (see slot.go; a map
// when another policy holds the slot) and recycled when no part tracks
// its block, so the steady state allocates nothing.

// raLinkKind names one of a record's list links.
const (
	raOrd   = 0 // + 2 x side: the cache's ordinary list
	raRecnt = 1 // + 2 x side: the cache's recency list
	raLRU   = 4 // the guard's simulated LRU cache
	raLOut  = 5 // the guard's list of the simulated LRU's evictions
	raROut  = 6 // the guard's list of the simulated regret_adaptive's evictions
	raGhost = 7 // + side
	raLinks = 9
)

// raPair links a record into one list: the indices of its neighbours (0:
// none; record 0 is never used).
type raPair struct{ prev, next uint32 }

// raRec is everything regret_adaptive and its guard know of a block;
// [side] is the real cache's (0) or the guard's unguarded simulation's (1).
type raRec struct {
	idx uint32 // this record's index
	// expired: a protection ran out unused during the residency; for a
	// ghost, its eviction does not count toward the regretted share
	res, prot, expired, isGhost [2]bool
	inLRU, inLOut, inROut       bool
	held                        bool // regret_tiered tracks the block (regret_tiered_table.go)
	id                          BlockID

	links [raLinks]raPair
	// step of the last access: while resident, and while a ghost (which
	// is never accessed in between) the last access before the eviction
	last    [2]int64
	ghostAt [2]int64 // eviction step
}

// used reports whether any part tracks the record's block.
func (r *raRec) used() bool { return r.raUsed() || r.held }

// raUsed reports whether regret_adaptive or its guard tracks the block.
func (r *raRec) raUsed() bool {
	return r.res[0] || r.res[1] || r.isGhost[0] || r.isGhost[1] || r.inLRU || r.inLOut || r.inROut
}

// raChunkBits sets the records a table allocates at once: 1 << raChunkBits.
const raChunkBits = 10

// raTable holds the records. State: one record per block any part
// tracks, plus freed records up to the most tracked at once.
type raTable struct {
	chunks []*[1 << raChunkBits]raRec
	blocks []*Block // [index]: the record's block, nil when free
	over   map[BlockID]uint32
	free   []uint32
	n      int // records in use
}

// newRATable returns an empty table with reserve records allocated and
// initialised up front (their memory touched), so that no event of a
// cache that reaches that size grows the table: the first touch of new
// memory (a page fault) costs more than the rest of an event.
func newRATable(reserve int) *raTable {
	t := &raTable{blocks: make([]*Block, reserve+1), free: make([]uint32, 0, reserve)}
	for i := reserve; i >= 1; i-- {
		t.free = append(t.free, uint32(i))
	}
	for c := 0; reserve > 0 && c <= reserve>>raChunkBits; c++ {
		chunk := new([1 << raChunkBits]raRec)
		for j := range chunk {
			chunk[j].idx = uint32(c<<raChunkBits + j)
		}
		t.chunks = append(t.chunks, chunk)
	}
	return t
}

// raReserve is the most records a table reserves: 2^22 records, 512 MiB.
const raReserve = 1 << 22

// rec returns record i.
func (t *raTable) rec(i uint32) *raRec {
	return &t.chunks[i>>raChunkBits][i&(1<<raChunkBits-1)]
}

// get returns b's record, or nil. A record in b's slot is this table's
// when it is where this table keeps its index, and b's when it has b's
// ID (a copy of a Block is the same block, as in a map by ID).
func (t *raTable) get(b *Block) *raRec {
	r, ok := b.slot.(*raRec)
	if !ok {
		r, ok = lentValue(b).(*raRec)
	}
	if ok && r.id == b.ID && t.owns(r) {
		return r
	}
	if len(t.over) == 0 {
		return nil
	}
	if i, ok := t.over[b.ID]; ok {
		return t.rec(i)
	}
	return nil
}

func (t *raTable) owns(r *raRec) bool {
	c := int(r.idx >> raChunkBits)
	return c < len(t.chunks) && t.rec(r.idx) == r
}

// add returns b's record, creating it when there is none.
func (t *raTable) add(b *Block) *raRec {
	if r := t.get(b); r != nil {
		return r
	}
	var i uint32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
		t.blocks[i] = b
	} else {
		i = uint32(len(t.blocks))
		if int(i>>raChunkBits) == len(t.chunks) {
			t.chunks = append(t.chunks, new([1 << raChunkBits]raRec))
		}
		t.blocks = append(t.blocks, b)
	}
	r := t.rec(i)
	r.idx, r.id, r.expired = i, b.ID, [2]bool{}
	t.n++
	if freeSlot(b) {
		b.slot = r
		return r
	}
	keepOver(&t.over, b, r, i)
	return r
}

// release recycles r when no part tracks its block any more. Its flags
// are all false and its links unlinked already.
func (t *raTable) release(r *raRec) {
	if r.used() {
		return
	}
	b := t.blocks[r.idx]
	if b.slot == any(r) {
		b.slot = nil
	} else if !unlend(b, r) {
		delete(t.over, b.ID)
	}
	t.blocks[r.idx] = nil
	t.free = append(t.free, r.idx)
	t.n--
}

// block returns the block of record i.
func (t *raTable) block(i uint32) *Block { return t.blocks[i] }

// raList is a doubly linked list of records through their link kind;
// the front is the newest insertion.
type raList struct {
	kind       int
	head, tail uint32
	n          int
}

func (l *raList) link(t *raTable, i uint32) *raPair { return &t.rec(i).links[l.kind] }

func (l *raList) pushFront(t *raTable, i uint32) {
	*l.link(t, i) = raPair{next: l.head}
	if l.head != 0 {
		l.link(t, l.head).prev = i
	} else {
		l.tail = i
	}
	l.head = i
	l.n++
}

func (l *raList) pushBack(t *raTable, i uint32) {
	*l.link(t, i) = raPair{prev: l.tail}
	if l.tail != 0 {
		l.link(t, l.tail).next = i
	} else {
		l.head = i
	}
	l.tail = i
	l.n++
}

func (l *raList) remove(t *raTable, i uint32) {
	k := l.link(t, i)
	if k.prev != 0 {
		l.link(t, k.prev).next = k.next
	} else {
		l.head = k.next
	}
	if k.next != 0 {
		l.link(t, k.next).prev = k.prev
	} else {
		l.tail = k.prev
	}
	*k = raPair{}
	l.n--
}

func (l *raList) moveToFront(t *raTable, i uint32) {
	if l.head == i {
		return
	}
	l.remove(t, i)
	l.pushFront(t, i)
}

func (l *raList) len() int { return l.n }
