package policy

func init() {
	Register(Info{
		Name: "lru",
		Doc:  "least recently used: evict the resident block accessed longest ago",
		New:  func(*Params, Env) (Policy, error) { return NewLRU(), nil },
	})
}

// LRU evicts the least recently used resident block. State: one node per
// resident block, found through the block's slot (see nodeTable); nothing
// is kept after eviction. No event allocates once the table has grown to
// the resident set.
type LRU struct {
	nodes nodeTable
	order list
}

// NewLRU returns an empty LRU policy.
func NewLRU() *LRU { return &LRU{} }

// Access moves a resident block to the most recent position.
func (p *LRU) Access(b *Block, _ Time) {
	if n, ok := p.nodes.get(b); ok {
		p.order.moveToFront(n)
	}
}

// Admit inserts b as the most recent block.
func (p *LRU) Admit(b *Block, _ Time) { p.order.pushFront(p.nodes.add(b)) }

// Evict removes b.
func (p *LRU) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b.
func (p *LRU) Forget(b *Block) {
	if n, ok := p.nodes.get(b); ok {
		p.order.remove(n)
		p.nodes.remove(n)
	}
}

// Victim returns the least recently used block.
func (p *LRU) Victim(Time) (*Block, bool) {
	if n := p.order.back(); n != nil {
		return n.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *LRU) Len() int { return p.nodes.len() }
