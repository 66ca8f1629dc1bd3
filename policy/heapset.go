package policy

// keyed holds the resident blocks of a score-based policy: one item per
// block, indexed by ID and ordered in a min-heap, so lookups are O(1) and key
// changes and victim choice O(log n). It also counts events: tick returns a
// logical step that policies use as an exact recency order, independent of
// the unit of Time.
type keyed struct {
	items map[BlockID]*item
	h     minHeap
	step  int64
}

func newKeyed() keyed { return keyed{items: map[BlockID]*item{}} }

// tick advances and returns the logical step.
func (k *keyed) tick() int64 { k.step++; return k.step }

// get returns the item of a resident block.
func (k *keyed) get(id BlockID) (*item, bool) {
	it, ok := k.items[id]
	return it, ok
}

// add inserts a new item for it.b.
func (k *keyed) add(it *item) {
	k.items[it.b.ID] = it
	k.h.push(it)
}

// fix restores heap order after it's rank, key or tie changed.
func (k *keyed) fix(it *item) { k.h.fix(it) }

// remove deletes the item of id and returns it.
func (k *keyed) remove(id BlockID) (*item, bool) {
	it, ok := k.items[id]
	if ok {
		k.h.remove(it)
		delete(k.items, id)
	}
	return it, ok
}

// victim returns the block of the smallest item.
func (k *keyed) victim() (*Block, bool) {
	if it := k.h.min(); it != nil {
		return it.b, true
	}
	return nil, false
}

// len returns the number of resident blocks.
func (k *keyed) len() int { return len(k.items) }
