package policy

// item is an element of a keyed min-heap: score-based policies keep one per
// resident block and update its key in O(log n).
type item struct {
	b     *Block
	rank  int32   // compared first: smaller is evicted first (class, priority)
	key   float64 // compared second: smaller is evicted first
	tie   int64   // breaks equal keys: smaller first (for example last access)
	index int     // position in the heap, -1 when not in it
	// Per-policy state.
	freq   float64 // access count or accumulated score
	regret float64 // regret_aware's regret
	last   int64   // logical step of the last access or of the eviction
	owner  any     // the table holding the item, if any (see entryTable)
}

// heapEntry is a heap slot: a copy of its item's order (rank, key, tie)
// next to the item, so sifting compares entries of one slice and touches
// an item only to record its new position. 32 bytes: two children share a
// cache line.
type heapEntry struct {
	key  float64
	tie  int64
	rank int32
	it   *item
}

func entryOf(it *item) heapEntry { return heapEntry{key: it.key, tie: it.tie, rank: it.rank, it: it} }

func (a *heapEntry) less(b *heapEntry) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.tie < b.tie
}

// minHeap is an indexed min-heap ordered by (rank, key, tie), binary by
// default or 4-ary when quad is set before the first push. Its slots
// start at index root (1 or 3; the slots before are unused) so that the
// children of a slot share a cache line (binary: 2i and 2i+1) or an
// aligned pair of lines (4-ary: 4i-8 to 4i-5); an item's index is its
// slot. The order of an item in the heap is copied into its slot at push
// and fix: a policy that changes an item's rank, key or tie calls fix (or
// removes the item first).
//
// A binary heap resolves exact ties of (rank, key, tie) by its shape, so
// policies whose ties can repeat keep it to keep their decisions; the
// 4-ary heap halves the levels a removal sifts through, and gives the
// same minimum whenever no two items tie (the tie is a unique step).
type minHeap struct {
	items []heapEntry
	quad  bool
	touch int64 // sink of the binary down's early loads
}

// heapRoot is the slot of the minimum of minHeap and keyHeap: 1, or 3
// for the 4-ary heap (the slots before are unused), so that the children
// of a slot (binary: 2i and 2i+1; 4-ary: 4i-8 to 4i-5) share a cache
// line, or an aligned pair of lines.
func heapRoot(quad bool) int {
	if quad {
		return 3
	}
	return 1
}

// heapParent is the parent slot of slot i in minHeap's and keyHeap's
// layout (see heapRoot).
func heapParent(quad bool, i int) int {
	if quad {
		return (i + 8) / 4
	}
	return i / 2
}

// root returns the slot of the minimum.
func (h *minHeap) root() int { return heapRoot(h.quad) }

// parent returns the parent slot of slot i.
func (h *minHeap) parent(i int) int { return heapParent(h.quad, i) }

// set stores e at slot i and records the position in its item.
func (h *minHeap) set(i int, e heapEntry) {
	h.items[i] = e
	e.it.index = i
}

// up moves e, which belongs at slot i, toward the root.
func (h *minHeap) up(i int, e heapEntry) {
	for r := h.root(); i > r; {
		p := h.parent(i)
		if !e.less(&h.items[p]) {
			break
		}
		h.set(i, h.items[p])
		i = p
	}
	h.set(i, e)
}

// down moves e, which belongs at slot i, toward the leaves and reports
// whether it moved.
func (h *minHeap) down(i int, e heapEntry) bool {
	if h.quad {
		return h.down4(i, e)
	}
	start, n := i, len(h.items)
	var touch int64
	for {
		c := 2 * i
		if c >= n {
			break
		}
		// Load the grandchildren (4i to 4i+3, two lines) now, so that
		// their misses overlap the choice between the children instead of
		// following it: half the dependent misses, the same heap.
		if g := 4 * i; g+2 < n {
			touch += h.items[g].tie ^ h.items[g+2].tie
			// and the great-grandchildren (8i to 8i+7, four lines), so
			// that two levels' misses are in flight at a time.
			if gg := 8 * i; gg+7 < n {
				ggs := h.items[gg : gg+8 : gg+8]
				touch += ggs[0].tie ^ ggs[2].tie ^ ggs[4].tie ^ ggs[6].tie
				if g3 := 16 * i; g3+15 < n {
					g3s := h.items[g3 : g3+16 : g3+16]
					touch += g3s[0].tie ^ g3s[2].tie ^ g3s[4].tie ^ g3s[6].tie ^ g3s[8].tie ^ g3s[10].tie ^ g3s[12].tie ^ g3s[14].tie
				}
			}
		}
		if r := c + 1; r < n && h.items[r].less(&h.items[c]) {
			c = r
		}
		if !h.items[c].less(&e) {
			break
		}
		h.set(i, h.items[c])
		i = c
	}
	h.set(i, e)
	h.touch = touch
	return i > start
}

// down4 is down for the 4-ary heap.
func (h *minHeap) down4(i int, e heapEntry) bool {
	start, n := i, len(h.items)
	var touch int64
	for {
		first := 4*i - 8
		if first >= n {
			break
		}
		// Load the grandchildren (16i-40 to 16i-25, the children of all
		// four children: eight lines) now, so that their misses overlap
		// the choice between the children instead of following it.
		if g := 4*first - 8; g+15 < n {
			gs := h.items[g : g+16 : g+16]
			touch += gs[0].tie ^ gs[2].tie ^ gs[4].tie ^ gs[6].tie ^ gs[8].tie ^ gs[10].tie ^ gs[12].tie ^ gs[14].tie
		}
		c := first
		for j := first + 1; j < min(first+4, n); j++ {
			if h.items[j].less(&h.items[c]) {
				c = j
			}
		}
		if !h.items[c].less(&e) {
			break
		}
		h.set(i, h.items[c])
		i = c
	}
	h.set(i, e)
	h.touch = touch
	return i > start
}

// push inserts it.
func (h *minHeap) push(it *item) {
	if len(h.items) == 0 {
		h.items = append(h.items, make([]heapEntry, h.root())...)
	}
	h.items = append(h.items, heapEntry{})
	h.up(len(h.items)-1, entryOf(it))
}

// fix restores order after it's rank, key or tie changed.
func (h *minHeap) fix(it *item) {
	i, e := it.index, entryOf(it)
	if !h.down(i, e) {
		h.up(i, e)
	}
}

// remove deletes it from the heap.
func (h *minHeap) remove(it *item) {
	i, last := it.index, len(h.items)-1
	e := h.items[last]
	h.items[last] = heapEntry{}
	h.items = h.items[:last]
	if i != last && !h.down(i, e) {
		h.up(i, e)
	}
	it.index = -1
}

// min returns the smallest item or nil.
func (h *minHeap) min() *item {
	if r := h.root(); len(h.items) > r {
		return h.items[r].it
	}
	return nil
}

// len returns the number of items.
func (h *minHeap) len() int { return max(len(h.items)-h.root(), 0) }

// each calls f for every item, in heap order (not sorted).
func (h *minHeap) each(f func(*item)) {
	for i := h.root(); i < len(h.items); i++ {
		f(h.items[i].it)
	}
}

// reheap restores order after many items' orders changed at once, in O(n).
func (h *minHeap) reheap() {
	r := h.root()
	for i := r; i < len(h.items); i++ {
		h.items[i] = entryOf(h.items[i].it)
	}
	for i := h.parent(len(h.items) - 1); i >= r; i-- {
		h.down(i, h.items[i])
	}
}
