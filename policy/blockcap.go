package policy

// blockCap estimates a policy's capacity in blocks. Policies that size
// queues, ghost lists or sketches in blocks use Env.CapacityBlocks when the
// caller knows it and otherwise (or when more blocks fit, because blocks are
// smaller than assumed) the largest number of resident blocks seen: a Set
// only asks for a victim when it is full, so that high-water mark is the
// capacity in blocks.
type blockCap struct {
	fixed int
	high  int
}

func newBlockCap(env Env) blockCap { return blockCap{fixed: env.CapacityBlocks} }

// observe records that resident blocks are held.
func (c *blockCap) observe(resident int) {
	if resident > c.high {
		c.high = resident
	}
}

// get returns the capacity estimate, at least 1.
func (c *blockCap) get() int { return max(c.fixed, c.high, 1) }

// share returns frac of the capacity, rounded, at least 1.
func (c *blockCap) share(frac float64) int {
	return max(int(frac*float64(c.get())+0.5), 1)
}

// idGhosts is a bounded FIFO of evicted blocks (ghost entries): the newest
// at the front. It holds nodes so callers can keep per-block state.
type idGhosts struct {
	nodes map[BlockID]*node
	order list
}

func newIDGhosts() idGhosts { return idGhosts{nodes: map[BlockID]*node{}} }

// add inserts n as the newest ghost and drops the oldest ones beyond limit.
func (g *idGhosts) add(n *node, limit int) {
	if old, ok := g.nodes[n.b.ID]; ok {
		g.order.remove(old)
	}
	g.nodes[n.b.ID] = n
	g.order.pushFront(n)
	for g.order.len() > limit {
		g.drop(g.order.back().b.ID)
	}
}

// take removes and returns the ghost of id.
func (g *idGhosts) take(id BlockID) (*node, bool) {
	n, ok := g.nodes[id]
	if ok {
		g.order.remove(n)
		delete(g.nodes, id)
	}
	return n, ok
}

// drop removes the ghost of id if there is one.
func (g *idGhosts) drop(id BlockID) { g.take(id) }
