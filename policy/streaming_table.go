package policy

// streamEntry is Streaming's state of one resident block. It holds the
// block's slot when that is free or held by a policy that lends none, and
// lends a second slot (lent) in which the inner policy keeps its own
// state, so that neither needs a map (see slot.go). A free or stale slot
// (freeSlot) is taken as it is; a slot held by another policy's state
// (the inner policy's ghost of the block, or another policy tracking the
// same block, such as a planner's lru) moves to lent, and back to the
// block's slot when Streaming drops the block. A list node or a
// hit_density record moved so is marked not in its block's slot (inSlot),
// so that a drop of it empties lent.
type streamEntry struct {
	mem   seqMember
	b     *Block
	owner *streamTable // the table holding it
	lent  any          // the slot lent to other policies
	state uint8
}

// streamTable finds the streamEntry of a resident block: through the
// block's slot when this table holds it, else through a map. Entries come
// from chunks and are recycled, so admitting a block allocates nothing in
// the steady state. State: one entry per resident block, plus freed
// entries up to the most blocks resident at once.
type streamTable struct {
	over  map[BlockID]*streamEntry // blocks whose slot another policy holds
	free  []*streamEntry           // recycled entries
	chunk []streamEntry            // unused entries of the current chunk
	n     int                      // resident blocks
}

// get returns the entry of b, if b is resident.
func (t *streamTable) get(b *Block) (*streamEntry, bool) {
	if e, ok := b.slot.(*streamEntry); ok && e.owner == t && e.b == b {
		return e, true
	}
	if len(t.over) == 0 {
		return nil, false
	}
	e, ok := t.over[b.ID]
	return e, ok
}

// add tracks b, which must not be tracked, and returns its zeroed entry.
// The entry takes b's slot unless another lender holds it, moving what
// the slot held to the slot it lends.
func (t *streamTable) add(b *Block) *streamEntry {
	var e *streamEntry
	if n := len(t.free); n > 0 {
		e, t.free = t.free[n-1], t.free[:n-1]
	} else {
		if len(t.chunk) == 0 {
			t.chunk = make([]streamEntry, nodeChunk)
		}
		e, t.chunk = &t.chunk[0], t.chunk[1:]
	}
	*e = streamEntry{b: b, owner: t}
	t.n++
	if freeSlot(b) {
		b.slot = e
		return e
	}
	if _, lender := b.slot.(*streamEntry); !lender {
		switch s := b.slot.(type) { // now in lent: drop must unlend it
		case *node:
			s.inSlot = false
		case *hdRec:
			s.inSlot = false
		}
		e.lent, b.slot = b.slot, e
		return e
	}
	if t.over == nil {
		t.over = map[BlockID]*streamEntry{}
	}
	t.over[b.ID] = e
	return e
}

// remove stops tracking the block of e, handing the slot e lent back to
// the block, and recycles e. Its fields but the slot's stay readable
// until the next add.
func (t *streamTable) remove(e *streamEntry) {
	b := e.b
	if b.slot == any(e) {
		b.slot, e.lent = e.lent, nil
		switch s := b.slot.(type) {
		case *node:
			s.inSlot = s.inSlot || s.b == b
		case *hdRec:
			s.inSlot = s.inSlot || (s.state != hdFree && s.id == b.ID)
		}
	} else {
		delete(t.over, b.ID)
	}
	e.owner = nil
	t.n--
	t.free = append(t.free, e)
}

// len returns the number of resident blocks.
func (t *streamTable) len() int { return t.n }
