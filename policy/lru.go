package policy

func init() {
	Register(Info{
		Name: "lru",
		Doc:  "least recently used: evict the resident block accessed longest ago",
		New:  func(*Params, Env) (Policy, error) { return NewLRU(), nil },
	})
}

// LRU evicts the least recently used resident block. State: one node per
// resident block, found through the block's slot (see nodeTable), and a
// queue of the blocks in the order of their admissions and accesses,
// oldest first: an access appends the block again and makes its earlier
// place stale (a node's at is the sequence number of its live place), so
// the oldest live place is the least recently used block. Unlike a linked
// list, the queue lists the next victims without a dependent load per
// victim (Ahead): at millions of blocks, walking a list whose nodes lie
// scattered costs a cache and TLB miss per node, one after the other.
// Stale places are dropped as the victims pass them and by a compaction
// when they make up half of the queue (one that reads no node when most
// of them were passed), so every event is O(1) amortized and the queue
// holds 8 to 20 bytes per resident block. No event
// allocates once the queue and the table have grown to the resident set.
type LRU struct {
	nodes nodeTable
	q     []*node // places, oldest first from head; nil once passed
	head  int     // q[:head] are passed
	base  Time    // the sequence number of q[0]; the first is 1
}

// NewLRU returns an empty LRU policy.
func NewLRU() *LRU { return &LRU{base: 1} }

// lruSlack is the stale places a queue may hold beyond its live ones
// before a compaction, so that a small queue is not compacted often.
const lruSlack = 64

// Access moves a resident block to the most recent position.
func (p *LRU) Access(b *Block, _ Time) {
	n, ok := p.nodes.get(b)
	if !ok || n.at == p.base+Time(len(p.q))-1 {
		return // not resident, or already the most recent
	}
	p.push(n)
}

// Admit inserts b as the most recent block.
func (p *LRU) Admit(b *Block, _ Time) { p.push(p.nodes.add(b)) }

// push appends a place for n, which becomes its live place.
func (p *LRU) push(n *node) {
	if len(p.q) == cap(p.q) {
		p.room()
	}
	n.at = p.base + Time(len(p.q))
	p.q = append(p.q, n)
}

// room makes room for one more place: when half of the queue or more is
// stale or passed, by dropping the passed places if they are most of
// those (shift) or else by compacting it; otherwise by growing it by a
// quarter.
func (p *LRU) room() {
	dead := len(p.q) - p.nodes.len()
	switch {
	case dead < len(p.q)/2 || dead <= lruSlack/2:
		q := make([]*node, len(p.q), len(p.q)+len(p.q)/4+lruSlack)
		copy(q, p.q)
		p.q = q
	case p.head >= dead/2:
		p.shift()
	default:
		p.compact()
	}
}

// shift drops the passed places. The rest move to the front with their
// sequence numbers (base moves with them), so no node is read: at
// millions of blocks, reading every live node is a cache miss each.
func (p *LRU) shift() {
	n := copy(p.q, p.q[p.head:])
	clear(p.q[n:])
	p.q, p.base, p.head = p.q[:n], p.base+Time(p.head), 0
}

// compact moves the live places to the front of the queue, in order, with
// sequence numbers after every one given so far.
func (p *LRU) compact() {
	next := p.base + Time(len(p.q))
	k := 0
	for i := p.head; i < len(p.q); i++ {
		if n := p.q[i]; n != nil && n.at == p.base+Time(i) {
			n.at = next + Time(k)
			p.q[k] = n
			k++
		}
	}
	clear(p.q[k:])
	p.q, p.head, p.base = p.q[:k], 0, next
}

// Evict removes b.
func (p *LRU) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b. Its place turns stale (the recycled node's at no
// longer matches it), unless it is the last one, which goes: a block
// admitted and evicted at once (a planner demoting a block it has just
// tracked) leaves nothing to compact.
func (p *LRU) Forget(b *Block) {
	n, ok := p.nodes.get(b)
	if !ok {
		return
	}
	p.unplace(n)
	p.nodes.remove(n)
}

// unplace drops n's live place if it is the last one (see Forget); any
// other turns stale once n is recycled.
func (p *LRU) unplace(n *node) {
	if last := len(p.q) - 1; last >= p.head && n.at == p.base+Time(last) {
		p.q[last] = nil
		p.q = p.q[:last]
	}
}

// Victim returns the least recently used block.
func (p *LRU) Victim(Time) (*Block, bool) {
	for ; p.head < len(p.q); p.head++ {
		if n := p.q[p.head]; n.at == p.base+Time(p.head) {
			return n.b, true
		}
		p.q[p.head] = nil
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *LRU) Len() int { return p.nodes.len() }
