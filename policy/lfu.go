package policy

func init() {
	Register(Info{
		Name: "lfu",
		Doc: "least frequently used: evict the resident block with the fewest accesses since admission, " +
			"the least recently used among equals",
		New: func(*Params, Env) (Policy, error) { return NewLFU(), nil },
	})
}

// LFU evicts the resident block with the fewest accesses since it was
// admitted (the access that missed counts as the first); among blocks with
// equal counts, the least recently used. Counts start afresh at each
// admission, as in the seed's in-cache LFU. Events are O(log n) in a min-heap
// keyed by (count, last access step). State: one item per resident block;
// nothing is kept after eviction, plus the ID of the last block accessed
// while not resident, so its miss counts once it is admitted.
type LFU struct {
	k    keyed
	miss missCount // of the last block accessed while not resident
}

// NewLFU returns an empty LFU policy.
func NewLFU() *LFU { return &LFU{} }

// Access counts an access of a resident block and makes it the most recent
// among blocks of its count.
func (p *LFU) Access(b *Block, _ Time) {
	step := p.k.tick()
	it, ok := p.k.get(b)
	if !ok {
		p.miss.miss(b.ID)
		return
	}
	it.key++
	it.tie = step
	p.k.fix(it)
}

// Admit inserts b with a count of 1 if its miss was just seen, else 0.
func (p *LFU) Admit(b *Block, _ Time) {
	it := p.k.add(b)
	it.tie = p.k.tick()
	if p.miss.take(b.ID) > 0 {
		it.key = 1
	}
	p.miss.reset()
	p.k.push(it)
}

// Evict removes b.
func (p *LFU) Evict(b *Block, _ Time) { p.k.remove(b) }

// Forget removes b.
func (p *LFU) Forget(b *Block) {
	p.k.remove(b)
	p.miss.forget(b.ID)
}

// Victim returns the least frequently used block, least recent among equals.
func (p *LFU) Victim(Time) (*Block, bool) { return p.k.victim() }

// Len returns the number of resident blocks.
func (p *LFU) Len() int { return p.k.len() }
