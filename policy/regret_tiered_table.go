package policy

// regret_tiered finds what it knows of a block as regret_adaptive does
// (regret_table.go): through the block's slot, which holds the record of
// its inner regret_adaptive, whose table the two share. regret_tiered's
// own part, an rtRec, sits at the same index in an array of its own that
// holds no pointers (its lists link records by index), and the raRec's
// held flag keeps the record while regret_tiered tracks the block. An
// event makes no map lookup and, in the steady state, allocates nothing.

// rtLinkKind names one of an rtRec's list links.
const (
	rtReal  = 0 // the real cache's class lists
	rtSimL  = 1 // the simulated LRU cache
	rtSimC  = 2 // the simulated class-ranked cache's class lists
	rtLoose = 3 // records in none of the three caches
	rtLinks = 4
)

// rtRec is what regret_tiered knows of a block: its links in its three
// caches (real, simulated LRU, simulated class) or the loose list, and
// its reads. 64 bytes: one cache line.
type rtRec struct {
	links       [rtLinks]raPair
	last, hotAt int64  // step of the last read and of the last short reuse (-1: none)
	idx         uint32 // the record's index, in this table and the raTable
	inReal      bool
	inL, inC    bool
	hotReal     bool // the class list real holds the block in
	hotC        bool // the class list simC holds the block in
	loose       bool // in the loose list: in none of the caches
}

// rtTable holds regret_tiered's records beside the raTable's, in one
// array, so that finding record i is an address computation, not a load
// (a walk of a list's ends follows one link per record). State: a record
// per index the raTable has allocated, and up to as many again while the
// raTable grows past its reserve.
type rtTable struct {
	ra   *raTable
	recs []rtRec
	n    int // records regret_tiered tracks
}

// newRTTable returns an empty table beside ra, with as many records
// allocated and touched up front as ra has (see newRATable).
func newRTTable(ra *raTable) *rtTable {
	t := &rtTable{ra: ra}
	t.grow(len(ra.chunks))
	return t
}

// grow makes room for the records of n chunks of the raTable, doubling
// the array when it grows past them (a record pointer is not kept across
// an add, which may move the records).
func (t *rtTable) grow(n int) {
	need := n << raChunkBits
	if need <= len(t.recs) {
		return
	}
	if len(t.recs) > 0 {
		need = max(need, 2*len(t.recs))
	}
	recs := make([]rtRec, need)
	copy(recs, t.recs)
	for j := len(t.recs); j < need; j++ {
		recs[j].idx = uint32(j)
	}
	t.recs = recs
}

// rec returns record i, which must have been added.
func (t *rtTable) rec(i uint32) *rtRec { return &t.recs[i] }

// get returns b's record, or nil when regret_tiered does not track b.
func (t *rtTable) get(b *Block) *rtRec {
	if r := t.ra.get(b); r != nil && r.held {
		return t.rec(r.idx)
	}
	return nil
}

// add returns b's record, creating a fresh one (no read, no cache) when
// regret_tiered does not track b.
func (t *rtTable) add(b *Block) *rtRec {
	r := t.ra.add(b)
	if r.held {
		return t.rec(r.idx)
	}
	r.held = true
	t.grow(len(t.ra.chunks))
	e := t.rec(r.idx)
	*e = rtRec{idx: r.idx, last: -1, hotAt: -1}
	t.n++
	return e
}

// release stops tracking the block of e, which is in no list, and
// recycles the shared record when regret_adaptive does not track the
// block either.
func (t *rtTable) release(e *rtRec) {
	r := t.ra.rec(e.idx)
	r.held = false
	t.n--
	t.ra.release(r)
}

// unhold stops tracking the block of e, which is in no list, leaving the
// shared record to regret_adaptive, which releases it (Forget).
func (t *rtTable) unhold(e *rtRec) {
	t.ra.rec(e.idx).held = false
	t.n--
}

// block returns the block of record i.
func (t *rtTable) block(i uint32) *Block { return t.ra.block(i) }

// rtList is a doubly linked list of rtRecs through their link kind; the
// front is the newest insertion. ends, when not nil, keeps the records at
// both ends (the class lists the density ranking walks).
type rtList struct {
	kind       int
	head, tail uint32
	n          int
	ends       *rtEnds
}

func (l *rtList) link(t *rtTable, i uint32) *raPair { return &t.rec(i).links[l.kind] }

func (l *rtList) pushFront(t *rtTable, i uint32) {
	*l.link(t, i) = raPair{next: l.head}
	if l.head != 0 {
		l.link(t, l.head).prev = i
	} else {
		l.tail = i
	}
	l.head = i
	l.n++
	if l.ends != nil {
		l.ends.pushed(i, l.n)
	}
}

func (l *rtList) remove(t *rtTable, i uint32) {
	if l.ends != nil {
		l.ends.removing(l, t, i, l.n)
	}
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

func (l *rtList) moveToFront(t *rtTable, i uint32) {
	if l.head == i {
		return
	}
	l.remove(t, i)
	l.pushFront(t, i)
}

func (l *rtList) len() int { return l.n }
