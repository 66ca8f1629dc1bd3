package policy

func init() {
	Register(Info{
		Name: "belady",
		Doc: "Bélády's MIN, the offline optimum: evict the resident block whose next access is furthest " +
			"in the future (needs Block.Next; simulator only)",
		Offline: true,
		New:     func(_ *Params, _ Env) (Policy, error) { return NewBelady(), nil },
	})
}

// Belady is Bélády's MIN algorithm ("A study of replacement algorithms for a
// virtual-storage computer", 1966): the victim is the resident block whose
// next access (Block.Next, set by the simulator before each Access) is
// furthest in the future; blocks never accessed again (Next = Never) go
// first. With unit sizes and demand admission it has the fewest misses of
// any policy, so it bounds every other one.
//
// Residents sit in a heap keyed by Next, so every event is O(log n). State:
// one heap item per resident block; nothing is kept after eviction.
type Belady struct {
	items map[BlockID]*item
	heap  minHeap
}

// NewBelady returns an empty Bélády policy.
func NewBelady() *Belady { return &Belady{items: map[BlockID]*item{}} }

// key orders blocks so the furthest next access is the heap minimum.
func beladyKey(it *item) {
	it.key = -float64(it.b.Next)
	it.tie = -int64(it.b.ID)
}

// Access re-reads the next access time of a resident block.
func (p *Belady) Access(b *Block, _ Time) {
	if it, ok := p.items[b.ID]; ok {
		it.b = b
		beladyKey(it)
		p.heap.fix(it)
	}
}

// Admit inserts b keyed by its next access.
func (p *Belady) Admit(b *Block, _ Time) {
	it := &item{b: b}
	beladyKey(it)
	p.items[b.ID] = it
	p.heap.push(it)
}

// Evict removes b.
func (p *Belady) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b.
func (p *Belady) Forget(b *Block) {
	if it, ok := p.items[b.ID]; ok {
		p.heap.remove(it)
		delete(p.items, b.ID)
	}
}

// Victim returns the resident block accessed furthest in the future.
func (p *Belady) Victim(Time) (*Block, bool) {
	if it := p.heap.min(); it != nil {
		return it.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *Belady) Len() int { return len(p.items) }
