package policy

// hdRec is what hit_density keeps of a block it tracks: a resident block
// or a ghost (a sampled evicted block followed until it returns or
// expires). Records live in chunks that hold no pointers, so the garbage
// collector never scans them, and are found through the block's slot
// (hdTable). 32 bytes: two to a cache line.
type hdRec struct {
	id BlockID // the block's ID
	// t is a resident's age at its last hit (0: none), a ghost's step at
	// which its lifetime began
	t int64
	// at is a resident's slot in HitDensity.res, a ghost's position in
	// the ghost ring (the low 32 bits of its push count)
	at     uint32
	self   uint32 // this record's index
	reads  uint16 // accesses while tracked, at least 1 (saturated: see classify)
	prefix uint16 // shared blocks before it in its run at its last access (saturated)
	class  uint8  // a ghost's class
	state  uint8  // hdFree, hdResident or hdGhost
	inSlot bool   // in its block's own slot (not a lent one or the map)
}

// States of an hdRec.
const (
	hdFree = iota
	hdResident
	hdGhost
)

// hdSat is where hdRec's reads and prefix saturate: classify buckets
// both by their log2 up to 8 and 4, so any count from 8 on classes alike.
const hdSat = 1<<16 - 1

// hdChunkBits sets the records an hdTable allocates at once.
const hdChunkBits = 10

// hdTable holds hit_density's records and finds a block's through its
// slot (see slot.go; through the slot its holder lends, or a map, when
// another policy holds it). A record in the slot is this table's when it
// is where this table keeps its index, and the block's when it is in use
// and has the block's ID (a copy of a Block is the same block, as in a map
// by ID). drop frees a record without touching its block, whose slot then
// holds a stale record (freeSlot takes it as free), so that a ghost's
// expiry costs no cache miss on its block. blocks[i] is the block record
// i was last given to: the one pointer per record, in one array, read
// only to drop a record kept in a lent slot. Record 0 is never used.
// State: a record per tracked block, plus freed ones up to the most
// tracked at once.
type hdTable struct {
	chunks []*[1 << hdChunkBits]hdRec
	blocks []*Block
	over   map[BlockID]uint32
	free   []uint32
	n      int
}

// rec returns record i.
func (t *hdTable) rec(i uint32) *hdRec {
	return &t.chunks[i>>hdChunkBits][i&(1<<hdChunkBits-1)]
}

// owns reports whether r is a record of this table.
func (t *hdTable) owns(r *hdRec) bool {
	c := int(r.self >> hdChunkBits)
	return c < len(t.chunks) && t.rec(r.self) == r
}

// get returns b's record, or nil.
func (t *hdTable) get(b *Block) *hdRec {
	r, ok := b.slot.(*hdRec)
	if !ok {
		r, ok = lentValue(b).(*hdRec)
	}
	if ok && r.id == b.ID && r.state != hdFree && t.owns(r) {
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

// add tracks b, which must not be tracked, and returns its record, zeroed
// but for its ID, index and state (resident).
func (t *hdTable) add(b *Block) *hdRec {
	claim := freeSlot(b)
	var i uint32
	if n := len(t.free); n > 0 {
		i, t.free = t.free[n-1], t.free[:n-1]
		t.blocks[i] = b
	} else {
		if len(t.blocks) == 0 {
			t.blocks = append(t.blocks, nil) // record 0 is never used
		}
		i = uint32(len(t.blocks))
		t.grow(int(i>>hdChunkBits) + 1)
		t.blocks = append(t.blocks, b)
	}
	r := t.rec(i)
	*r = hdRec{id: b.ID, self: i, state: hdResident}
	t.n++
	if claim {
		b.slot, r.inSlot = r, true
		return r
	}
	keepOver(&t.over, b, r, i)
	return r
}

// remove stops tracking b, whose record is r, and recycles r.
func (t *hdTable) remove(b *Block, r *hdRec) {
	if r.inSlot {
		b.slot = nil
	} else if !unlend(b, r) {
		delete(t.over, b.ID)
	}
	t.release(r)
}

// drop stops tracking the block of r and recycles r as remove does, but
// reads and writes the block only when r is in the slot lent to it: its
// own slot keeps the stale record (see hdTable).
func (t *hdTable) drop(r *hdRec) {
	if !r.inSlot && !unlend(t.blocks[r.self], r) {
		delete(t.over, r.id)
	}
	t.release(r)
}

// release frees r for reuse; the caller has taken it out of the slots.
func (t *hdTable) release(r *hdRec) {
	r.state = hdFree
	t.free = append(t.free, r.self)
	t.n--
}

// clearStale empties b's slot when it holds a stale record of this table
// (b is being forgotten: no slot outlives the blocks' last policy).
func (t *hdTable) clearStale(b *Block) {
	if r, ok := b.slot.(*hdRec); ok && t.owns(r) && (r.state == hdFree || r.id != b.ID) {
		b.slot = nil
	}
}

// grow allocates chunks until there are n.
func (t *hdTable) grow(n int) {
	for len(t.chunks) < n {
		t.chunks = append(t.chunks, new([1 << hdChunkBits]hdRec))
	}
}

// reserve allocates at once the records of n more blocks.
func (t *hdTable) reserve(n int) {
	if n -= len(t.free); n <= 0 {
		return
	}
	total := max(len(t.blocks), 1) + n
	t.grow((total + 1<<hdChunkBits - 1) >> hdChunkBits)
	if cap(t.blocks) < total {
		b := make([]*Block, len(t.blocks), total)
		copy(b, t.blocks)
		t.blocks = b
	}
}

// len returns the number of tracked blocks.
func (t *hdTable) len() int { return t.n }

// hdRing holds the ghosts in the order of their evictions, the oldest at
// the tail: a ring of record indices, 0 where a ghost left early (it
// returned or was forgotten). A ghost's record keeps its position, the
// low 32 bits of its push count. State: 4 bytes per ghost and per hole
// between the oldest and the newest ghost; compact bounds the holes.
type hdRing struct {
	buf        []uint32 // length a power of 2
	head, tail uint64   // pushes so far; the oldest position still held
	live       int      // ghosts
}

// len returns the number of ghosts.
func (g *hdRing) len() int { return g.live }

// oldest returns the position and record index of the oldest ghost; the
// ring must hold one. It drops the holes before it.
func (g *hdRing) oldest() (uint64, uint32) {
	mask := uint64(len(g.buf) - 1)
	for {
		if i := g.buf[g.tail&mask]; i != 0 {
			return g.tail, i
		}
		g.tail++
	}
}

// at returns the record index at position pos (a record's at).
func (g *hdRing) at(pos uint32) *uint32 {
	return &g.buf[uint64(pos)&uint64(len(g.buf)-1)]
}

// pushGhost makes record i, resident until now, the newest ghost, its
// lifetime begun at step at in class. It writes the record without
// reading it (a cache miss at a million residents that need not wait).
func (p *HitDensity) pushGhost(i uint32, at int64, class uint8) {
	r := p.tab.rec(i)
	g := &p.ghosts
	if g.head-g.tail == uint64(len(g.buf)) {
		p.growGhosts()
	}
	g.buf[g.head&uint64(len(g.buf)-1)] = i
	r.t, r.class, r.state, r.at = at, class, hdGhost, uint32(g.head)
	g.head++
	g.live++
}

// unghost takes ghost r out of the ring.
func (p *HitDensity) unghost(r *hdRec) {
	*p.ghosts.at(r.at) = 0
	p.ghosts.live--
}

// growGhosts makes room in the full ring: it compacts it when at most
// half of it holds ghosts, else doubles it. A ghost keeps its position
// when the ring doubles (its push count is the same); compacting renumbers
// the ghosts, so their records are rewritten.
func (p *HitDensity) growGhosts() {
	g := &p.ghosts
	if n := len(g.buf); n == 0 || 2*g.live > n {
		buf := make([]uint32, max(2*n, 64))
		mask, nmask := uint64(n-1), uint64(len(buf)-1)
		for pos := g.tail; pos != g.head; pos++ {
			buf[pos&nmask] = g.buf[pos&mask]
		}
		g.buf = buf
		return
	}
	mask := uint64(len(g.buf) - 1)
	w := g.head // the compacted ghosts go after the newest, in order
	for pos := g.tail; pos != g.head; pos++ {
		if i := g.buf[pos&mask]; i != 0 {
			g.buf[w&mask] = i
			p.tab.rec(i).at = uint32(w)
			w++
		}
	}
	g.tail = g.head
	g.head = w
}

// reserve allocates the slots and records of n residents at once; on an
// empty policy only (kv_adaptive moving its residents to this expert).
func (p *HitDensity) reserve(n int) {
	if len(p.res) > 0 || n <= 0 {
		return
	}
	p.res = make([]hdSlot, 0, n)
	p.tab.reserve(n)
}

// adopt takes over what another hit_density instance (a shadow of the
// same cache that saw one access in scale) learned.
func (p *HitDensity) adopt(from Policy, scale int64) {
	if src, ok := from.(*HitDensity); ok {
		p.model.adopt(&src.model, scale)
	}
}
