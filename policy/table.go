package policy

// entryTable finds the per-block entry (of type E) of a tracked block:
// through the block's slot when this table holds it (see slot.go), else
// through a map. Entries come from chunks and are recycled, so tracking a
// block allocates nothing in the steady state. An entry
// records its block and its table (P's slotted methods). State:
// one entry per tracked block, plus freed entries up to the most blocks
// tracked at once.
type entryTable[E any, P interface {
	*E
	slotted
}] struct {
	over  map[BlockID]P // blocks whose slot another policy holds
	free  []P           // recycled entries
	chunk []E           // unused entries of the current chunk
	n     int           // tracked blocks
}

// slotted is what an entryTable needs of an entry: the block it belongs
// to and the table holding it.
type slotted interface {
	slotBlock() *Block
	slotOwner() any
	setSlot(b *Block, owner any)
}

// get returns the entry of b, if b is tracked.
func (t *entryTable[E, P]) get(b *Block) (P, bool) {
	e, ok := b.slot.(P)
	if !ok {
		e, ok = lentValue(b).(P)
	}
	if ok && e.slotBlock() == b && e.slotOwner() == any(t) {
		return e, true
	}
	if len(t.over) == 0 {
		return nil, false
	}
	e, ok = t.over[b.ID]
	return e, ok
}

// add tracks b, which must not be tracked, and returns its zeroed entry
// with its block and table set.
func (t *entryTable[E, P]) add(b *Block) P {
	claim := freeSlot(b)
	var e P
	if n := len(t.free); n > 0 {
		e = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		if len(t.chunk) == 0 {
			t.chunk = make([]E, nodeChunk)
		}
		e = &t.chunk[0]
		t.chunk = t.chunk[1:]
	}
	var zero E
	*e = zero
	e.setSlot(b, t)
	t.n++
	if claim {
		b.slot = e
		return e
	}
	t.keep(b, e)
	return e
}

// keep records entry e of b, whose own slot is taken: in the slot lent by
// its holder if free, else in the map.
func (t *entryTable[E, P]) keep(b *Block, e P) { keepOver(&t.over, b, e, e) }

// remove stops tracking the block of e and recycles e. Its fields stay
// readable until the next add.
func (t *entryTable[E, P]) remove(e P) {
	b := e.slotBlock()
	if b.slot == any(e) {
		b.slot = nil
	} else if !unlend(b, e) {
		delete(t.over, b.ID)
	}
	e.setSlot(b, nil)
	t.n--
	t.free = append(t.free, e)
}

// len returns the number of tracked blocks.
func (t *entryTable[E, P]) len() int { return t.n }

// reserve allocates at once the entries of n more blocks, so that tracking
// them takes no chunk allocation each (a bulk load: kv_adaptive moving
// the residents to another expert).
func (t *entryTable[E, P]) reserve(n int) {
	if n -= len(t.free) + len(t.chunk); n > 0 {
		t.chunk = append(t.chunk, make([]E, n)...)
	}
}
