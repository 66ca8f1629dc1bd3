package policy

// rankedLRU is the shape shared by qos_aware, tiered_classes and
// predictive: resident blocks in a min-heap ordered by a rank and a key the
// policy derives from a block's metadata, and within equal rank and key by
// least recent use. Every event is O(log n). State: one item per resident
// block; nothing is kept after eviction.
type rankedLRU struct {
	k keyed
	// order sets an item's rank and key from its block; it receives the
	// event time and whether the item is new.
	order func(it *item, now Time, fresh bool)
}

// Access makes a resident block the most recent in its rank.
func (p *rankedLRU) Access(b *Block, now Time) {
	if it, ok := p.k.get(b); ok {
		it.tie = p.k.tick()
		p.order(it, now, false)
		p.k.fix(it)
	}
}

// Admit inserts b as the most recent block of its rank.
func (p *rankedLRU) Admit(b *Block, now Time) {
	it := p.k.add(b)
	it.tie = p.k.tick()
	p.order(it, now, true)
	p.k.push(it)
}

// Update reorders a resident block whose metadata changed, keeping its
// recency.
func (p *rankedLRU) Update(b *Block, _ Meta, now Time) {
	if it, ok := p.k.get(b); ok {
		p.order(it, now, false)
		p.k.fix(it)
	}
}

// Evict removes b.
func (p *rankedLRU) Evict(b *Block, _ Time) { p.k.remove(b) }

// Forget removes b.
func (p *rankedLRU) Forget(b *Block) { p.k.remove(b) }

// Victim returns the least recent block of the lowest rank and key.
func (p *rankedLRU) Victim(Time) (*Block, bool) { return p.k.victim() }

// Len returns the number of resident blocks.
func (p *rankedLRU) Len() int { return p.k.len() }
