package policy

// shadowCopies holds the shadows' copies of the blocks they saw (with
// sampling, the sampled ones), k per block (one per shadow), found by ID:
// one map probe per event of a block the shadows see, where each shadow's
// policy, its held set and its evictions each probed their own map when
// the shadows shared the real blocks (whose slot the real cache's expert
// holds).
//
// A block's copies are dropped when it is forgotten, and reaped once no
// shadow has state for them any more (reap): none holds its copy, every
// copy's slot is free, no shadow lists it among its evictions, and the
// block has not been seen for quiet syncs (so no shadow policy keeps the
// copy in a list of recent accesses: reuse_req's current request holds at
// most reqMaxPending). Copies are never reused for another block, so a
// shadow policy holding on to a copy sees it keep its ID. Every copy set
// waits in a queue, in the order it was made; each sync checks the two at
// its front and puts a set still in use back at the end, so the sets
// neither in use nor forgotten are at most about as many as those in use.
//
// State: a copy set (k copies and a queue place) per block the shadows
// hold or keep state for, and at most as many waiting to be reaped.
type shadowCopies struct {
	m     map[BlockID]*copySet
	k     int
	clock uint64 // syncs so far
	quiet uint64 // syncs without a block's before its copies may be reaped (0: never reaped)
	queue []*copySet
	head  int // the queue's front
}

// copySet is one block's copies, one per shadow.
type copySet struct {
	blocks []Block
	seen   uint64 // the clock at the last sync
	gone   bool   // dropped or reaped: its queue place is void
}

// shadowQuiet is kv_adaptive's quiet: twice the accesses reuse_req holds
// for one request, whose copies it must find again when the request ends.
const shadowQuiet = 2 * reqMaxPending

// reapPerSync is how many queued copy sets a sync checks: more than one,
// so that reaping outpaces new blocks (at most one a sync).
const reapPerSync = 2

func newShadowCopies(k int, quiet uint64) *shadowCopies {
	return &shadowCopies{m: map[BlockID]*copySet{}, k: k, quiet: quiet}
}

// sync returns the copies of b, made on first sight, with b's ID and
// Meta, at an access of b the shadows replay.
func (c *shadowCopies) sync(b *Block) []Block {
	c.clock++
	cs, ok := c.m[b.ID]
	if !ok {
		cs = &copySet{blocks: make([]Block, c.k)}
		c.m[b.ID] = cs
		if c.quiet > 0 {
			c.queue = append(c.queue, cs)
		}
	}
	cs.seen = c.clock
	refresh(cs.blocks, b)
	return cs.blocks
}

// refresh copies b's ID and Meta to its copies cs.
func refresh(cs []Block, b *Block) {
	for i := range cs {
		cs[i].ID, cs[i].Meta = b.ID, b.Meta
	}
}

// get returns the copies of the block with id, nil if there are none.
func (c *shadowCopies) get(id BlockID) []Block {
	if cs := c.m[id]; cs != nil {
		return cs.blocks
	}
	return nil
}

// drop forgets the copies of the block with id.
func (c *shadowCopies) drop(id BlockID) {
	if cs := c.m[id]; cs != nil {
		cs.gone = true
		delete(c.m, id)
	}
}

// reap checks the copy sets at the queue's front, reapPerSync of them:
// one that is void leaves the queue, one no shadow has state for (quiet
// syncs since it was last seen, and none of shadows keeps its copy) is
// dropped, any other goes back to the end.
func (c *shadowCopies) reap(shadows []*shadowCache) {
	for range reapPerSync {
		if c.head == len(c.queue) {
			break
		}
		cs := c.queue[c.head]
		c.queue[c.head] = nil
		c.head++
		switch {
		case cs.gone:
		case c.clock-cs.seen < c.quiet || keptBy(shadows, cs.blocks):
			c.queue = append(c.queue, cs)
		default:
			cs.gone = true
			delete(c.m, cs.blocks[0].ID)
		}
	}
	if c.head > 64 && c.head*2 > len(c.queue) {
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue, c.head = c.queue[:n], 0
	}
}

// waiting returns the copy sets in the queue, void ones included.
func (c *shadowCopies) waiting() int { return len(c.queue) - c.head }

// keptBy reports whether a shadow keeps state for its copy in cs: holds
// it, lists it among its evictions, or its policy holds the copy's slot.
func keptBy(shadows []*shadowCache, cs []Block) bool {
	for i, s := range shadows {
		c := &cs[i]
		if held(c) || !freeSlot(c) {
			return true
		}
		if s.follow {
			if _, ok := s.out.nodes[c.ID]; ok {
				return true
			}
		}
	}
	return false
}
