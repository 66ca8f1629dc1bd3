package policy

// A Block carries one unexported slot for the state of a policy that
// tracks it, so that the policy finds that state from the *Block in O(1)
// without a map lookup. The first policy to claim a free slot holds it
// until it forgets the block; any other policy tracking the same block at
// the same time (a wrapper and its inner policy, two planners) keeps its
// state in a map instead. A policy only trusts a slot that holds its own
// state for that very *Block, so a slot left behind by a discarded policy
// or a copied Block value is ignored, never misread. nodeTable (list
// policies), entryTable (table.go: heap and ghost-keeping policies) and
// raTable (regret policies) implement this.
//
// A wrapper that sees every block its inner policy sees (Streaming) holds
// the slot and lends a second one through its entry (streamEntry.lent):
// the tables look in the lent slot when the block's own holds another's
// state, so the inner policy finds its state without a map too. The lender
// is one concrete type, so that the lookups stay small enough to inline.
//
// A table may also stop tracking a block without touching it (drop), so
// that a caller evicting thousands of scattered blocks does not take a
// cache miss on each: the block's slot then still names the recycled node,
// which no longer belongs to it (stale). hit_density's hdTable drops an
// expired ghost's record so too. Any table claims a stale slot as
// a free one (freeSlot). A node kept in a lent slot or the map is removed
// from there as remove does (reading the block): the planner's lru and
// fifo, which drop, usually hold their blocks' own slots, but a Streaming
// tracking the same block moves their node to the slot it lends.

// lentValue returns what the slot lent by the holder of b's slot holds,
// or nil.
func lentValue(b *Block) any {
	if l, ok := b.slot.(*streamEntry); ok {
		return l.lent
	}
	return nil
}

// lend puts v in the slot lent by the holder of b's slot, if there is one
// and it is free, and reports whether it did. Tables call it when b's own
// slot is taken.
func lend(b *Block, v any) bool {
	if l, ok := b.slot.(*streamEntry); ok && l.lent == nil {
		l.lent = v
		return true
	}
	return false
}

// unlend empties the slot lent by the holder of b's slot if it holds v,
// and reports whether it did.
func unlend(b *Block, v any) bool {
	if l, ok := b.slot.(*streamEntry); ok && l.lent == v {
		l.lent = nil
		return true
	}
	return false
}

// nodeChunk is the number of nodes a nodeTable allocates at once.
const nodeChunk = 256

// nodeTable finds the list node of a tracked block: through the block's
// slot when this table holds it, else through a map. Nodes come from
// chunks and are recycled, so tracking a block allocates nothing in the
// steady state. State: one node per tracked block, plus freed nodes up to
// the most blocks tracked at once.
type nodeTable struct {
	over  map[BlockID]*node // blocks whose slot another policy holds
	free  *node             // recycled nodes, linked by next
	chunk []node            // unused nodes of the current chunk
	n     int               // tracked blocks
}

// get returns the node of b, if b is tracked.
func (t *nodeTable) get(b *Block) (*node, bool) {
	n, ok := b.slot.(*node)
	if !ok {
		n, ok = lentValue(b).(*node)
	}
	if ok && n.owner == t && n.b == b {
		return n, true
	}
	if len(t.over) == 0 {
		return nil, false
	}
	n, ok = t.over[b.ID]
	return n, ok
}

// freeSlot reports whether b's slot is free to claim: empty, or stale (a
// node that a table dropped, no longer b's, or a hit_density record that
// its hdTable dropped). It is called before the claiming table allocates,
// which could hand the stale node back to b.
func freeSlot(b *Block) bool {
	switch s := b.slot.(type) {
	case nil:
		return true
	case *node:
		return s.b != b
	case *hdRec:
		return s.state == hdFree || s.id != b.ID
	}
	return false
}

// add tracks b, which must not be tracked, and returns its zeroed node.
func (t *nodeTable) add(b *Block) *node {
	claim := freeSlot(b)
	n := t.alloc()
	*n = node{b: b, owner: t}
	t.n++
	if claim {
		b.slot, n.inSlot = n, true
		return n
	}
	t.keep(b, n)
	return n
}

// keep records node n of b, whose own slot is taken: in the slot lent by
// its holder if free, else in the map.
func (t *nodeTable) keep(b *Block, n *node) { keepOver(&t.over, b, n, n) }

// keepOver records the state of b, whose own slot is taken: lent, in the
// slot lent by its holder if free, else v (lent itself, or its index in
// the tables that hold records by index: raTable, hdTable) in the map
// *over (made on first use).
func keepOver[V any](over *map[BlockID]V, b *Block, lent any, v V) {
	if lend(b, lent) {
		return
	}
	if *over == nil {
		*over = map[BlockID]V{}
	}
	(*over)[b.ID] = v
}

// remove stops tracking the block of n and recycles n.
func (t *nodeTable) remove(n *node) {
	b := n.b
	if b.slot == any(n) {
		b.slot = nil
	} else if !unlend(b, n) {
		delete(t.over, b.ID)
	}
	t.n--
	*n = node{next: t.free}
	t.free = n
}

// drop stops tracking the block of n and recycles n, as remove does,
// without reading or writing the block when its slot holds n: the slot is
// left stale (see freeSlot). It writes only the node's first fields (b,
// at, next: no block, no live place, the free list), which LRU's
// lookahead fetched; a store to a line not fetched would wait for it.
// alloc overwrites the rest.
func (t *nodeTable) drop(n *node) {
	if !n.inSlot && !unlend(n.b, n) {
		delete(t.over, n.b.ID)
	}
	t.n--
	n.b, n.at, n.next = nil, 0, t.free
	t.free = n
}

func (t *nodeTable) alloc() *node {
	if n := t.free; n != nil {
		t.free = n.next
		return n
	}
	if len(t.chunk) == 0 {
		t.chunk = make([]node, nodeChunk)
	}
	n := &t.chunk[0]
	t.chunk = t.chunk[1:]
	return n
}

// len returns the number of tracked blocks.
func (t *nodeTable) len() int { return t.n }
