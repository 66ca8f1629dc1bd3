package policy

func init() {
	Register(Info{
		Name: "sieve",
		Doc: "SIEVE (Zhang et al., NSDI'24): FIFO with a visited bit; a hand moves from the oldest block " +
			"toward the newest, clearing visited bits, and evicts the first unvisited block",
		New: func(_ *Params, _ Env) (Policy, error) { return NewSIEVE(), nil },
	})
}

// SIEVE is SIEVE (Zhang et al., "SIEVE is simpler than LRU", NSDI'24).
// Blocks are kept in insertion order and never moved: a hit only sets the
// block's visited bit. The hand starts at the oldest block and moves toward
// the newest (wrapping to the oldest), clearing visited bits, until it finds
// an unvisited block: that is the victim, and the hand stays at the next
// newer block for the next eviction.
//
// Victim is amortised O(1): every bit it clears was set by a hit. State:
// one node per resident block; nothing is kept after eviction.
type SIEVE struct {
	nodes nodeTable
	queue list
	hand  *node
}

// NewSIEVE returns an empty SIEVE policy.
func NewSIEVE() *SIEVE { return &SIEVE{} }

// Access marks a resident block visited.
func (p *SIEVE) Access(b *Block, _ Time) {
	if n, ok := p.nodes.get(b); ok {
		n.visited = true
	}
}

// Admit inserts b at the head (newest end), unvisited.
func (p *SIEVE) Admit(b *Block, _ Time) {
	p.queue.pushFront(p.nodes.add(b))
}

// Evict removes b; if the hand is on it, the hand moves to the next newer
// block.
func (p *SIEVE) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b.
func (p *SIEVE) Forget(b *Block) {
	n, ok := p.nodes.get(b)
	if !ok {
		return
	}
	if p.hand == n {
		p.hand = p.queue.prevOf(n)
	}
	p.queue.remove(n)
	p.nodes.remove(n)
}

// Victim moves the hand to the first unvisited block, clearing visited bits
// on the way, and returns it.
func (p *SIEVE) Victim(Time) (*Block, bool) {
	o := p.hand
	if o == nil {
		o = p.queue.back()
	}
	if o == nil {
		return nil, false
	}
	for o.visited {
		o.visited = false
		if o = p.queue.prevOf(o); o == nil {
			o = p.queue.back()
		}
	}
	p.hand = o
	return o.b, true
}

// Len returns the number of resident blocks.
func (p *SIEVE) Len() int { return p.nodes.len() }
