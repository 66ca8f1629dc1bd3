package policy

// keyed holds the resident blocks of a score-based policy: one item per
// block, found through the block's slot (or a map, see entryTable) and
// ordered in a min-heap, so lookups are O(1) and key changes and victim
// choice O(log n). The heap is 4-ary: every policy using keyed sets tie
// to a fresh tick, so no two items tie. Items are recycled, so admissions allocate nothing in
// the steady state. It also counts events: tick returns a logical step
// that policies use as an exact recency order, independent of the unit of
// Time.
type keyed struct {
	items entryTable[item, *item]
	h     minHeap
	step  int64
}

func (it *item) slotBlock() *Block { return it.b }
func (it *item) slotOwner() any    { return it.owner }
func (it *item) setSlot(b *Block, owner any) {
	it.b, it.owner = b, owner
}

// tick advances and returns the logical step.
func (k *keyed) tick() int64 { k.step++; return k.step }

// get returns the item of a resident block.
func (k *keyed) get(b *Block) (*item, bool) { return k.items.get(b) }

// add returns a new zeroed item for b, not yet in the heap: the caller sets
// its order and calls push.
func (k *keyed) add(b *Block) *item { return k.items.add(b) }

// push inserts an item returned by add into the heap.
func (k *keyed) push(it *item) {
	if len(k.h.items) == 0 {
		k.h.quad = true
	}
	k.h.push(it)
}

// fix restores heap order after it's rank, key or tie changed.
func (k *keyed) fix(it *item) { k.h.fix(it) }

// remove deletes the item of b and returns it; its fields stay readable
// until the next add.
func (k *keyed) remove(b *Block) (*item, bool) {
	it, ok := k.items.get(b)
	if ok {
		k.h.remove(it)
		k.items.remove(it)
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
func (k *keyed) len() int { return k.items.len() }
