package policy

func init() {
	Register(Info{
		Name: "fifo",
		Doc:  "first in, first out: evict the resident block admitted longest ago; accesses change nothing",
		New:  func(*Params, Env) (Policy, error) { return NewFIFO(), nil },
	})
}

// FIFO evicts the resident block admitted longest ago. Accesses do not
// reorder blocks. Every event is O(1). State: one node per resident block;
// nothing is kept after eviction.
type FIFO struct {
	nodes nodeTable
	order list
}

// NewFIFO returns an empty FIFO policy.
func NewFIFO() *FIFO { return &FIFO{} }

// Access does nothing: FIFO ignores accesses.
func (p *FIFO) Access(*Block, Time) {}

// Admit inserts b as the newest block.
func (p *FIFO) Admit(b *Block, _ Time) {
	p.order.pushFront(p.nodes.add(b))
}

// Evict removes b.
func (p *FIFO) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b.
func (p *FIFO) Forget(b *Block) {
	if n, ok := p.nodes.get(b); ok {
		p.order.remove(n)
		p.nodes.remove(n)
	}
}

// Victim returns the block admitted longest ago.
func (p *FIFO) Victim(Time) (*Block, bool) {
	if n := p.order.back(); n != nil {
		return n.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *FIFO) Len() int { return p.nodes.len() }
