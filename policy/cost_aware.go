package policy

import "math"

func init() {
	Register(Info{
		Name: "cost_aware",
		Doc: "cost-aware (GreedyDual-Size-Frequency): evict the lowest clock + frequency/size^size_exp, where the " +
			"clock rises to each victim's key, so small, frequently used, recently used blocks stay",
		Params: []Param{
			{Name: "size_exp", Default: "1", Doc: "exponent of the size penalty, >= 0; 0 ignores sizes"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			e := p.Float("size_exp")
			p.Check(e >= 0 && !math.IsInf(e, 0), "size_exp", "an exponent >= 0")
			return NewCostAware(e), nil
		},
	})
}

// CostAware is the seed study's cost_aware baseline (frequency + recency + a
// page-size penalty) in the form of GreedyDual-Size-Frequency (Cherkasova,
// 1998). A block's key is
//
//	L + frequency / size^SizeExp
//
// set at each of its accesses, where frequency counts its accesses since
// admission, size is in bytes, and L, the clock, is raised to the key of
// each victim. Large blocks have small keys, so more small blocks fit (the
// only signal that salvaged hits on the seed's periodic_reuse sweep);
// blocks not accessed since the clock was low fall behind (recency); blocks
// accessed often climb (frequency). Keys never change as time passes, so
// events are O(log n). State: one item per resident block; nothing is kept
// after eviction.
type CostAware struct {
	k       keyed
	sizeExp float64
	clock   float64
	miss    missCount // of the last block accessed while not resident
}

// NewCostAware returns an empty cost-aware policy with the given size
// exponent.
func NewCostAware(sizeExp float64) *CostAware { return &CostAware{sizeExp: sizeExp} }

func (p *CostAware) rekey(it *item) {
	size := math.Max(float64(it.b.Meta.Size), 1)
	it.key = p.clock + it.freq/math.Pow(size, p.sizeExp)
	it.tie = p.k.tick()
}

// Access counts an access and raises the block's key from the clock.
func (p *CostAware) Access(b *Block, _ Time) {
	it, ok := p.k.get(b)
	if !ok {
		p.miss.miss(b.ID)
		return
	}
	it.freq++
	p.rekey(it)
	p.k.fix(it)
}

// Admit inserts b with the accesses that missed (at least 1).
func (p *CostAware) Admit(b *Block, _ Time) {
	it := p.k.add(b)
	it.freq = 1
	if n := p.miss.take(b.ID); n > 1 {
		it.freq = float64(n)
	}
	p.miss.reset()
	p.rekey(it)
	p.k.push(it)
}

// Update recomputes the key of a resident block whose size changed.
func (p *CostAware) Update(b *Block, old Meta, _ Time) {
	if it, ok := p.k.get(b); ok && b.Meta.Size != old.Size {
		p.rekey(it)
		p.k.fix(it)
	}
}

// Evict removes b; if it was the victim, the clock rises to its key.
func (p *CostAware) Evict(b *Block, _ Time) {
	it, ok := p.k.get(b)
	if !ok {
		return
	}
	if it == p.k.h.min() {
		p.clock = max(p.clock, it.key)
	}
	p.k.remove(b)
}

// Forget removes b.
func (p *CostAware) Forget(b *Block) {
	p.k.remove(b)
	p.miss.forget(b.ID)
}

// Victim returns the block with the lowest key.
func (p *CostAware) Victim(Time) (*Block, bool) { return p.k.victim() }

// Len returns the number of resident blocks.
func (p *CostAware) Len() int { return p.k.len() }
