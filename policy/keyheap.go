package policy

// keyEntry is a slot of a keyHeap: a copy of its item's key next to the
// item. 16 bytes: a 4-ary heap's four children share one cache line, a
// binary heap's grandchildren too.
type keyEntry struct {
	key float64
	it  *item
}

// less orders entries by key, then by their items' tie: the order of
// minHeap's entries whose items share one rank. The tie is read from the
// item, only where keys are equal.
func (a *keyEntry) less(b *keyEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.it.tie < b.it.tie
}

// keyHeap is minHeap for items of one rank in half the memory (its slot
// layout is minHeap's, heapRoot and heapParent; its sift loops are
// minHeap's over keyEntry, written out so that less inlines, and
// TestKeyHeapMatchesMinHeap holds the two to the same moves): its slots
// hold the key and the item, not the tie, which only equal keys need. It
// compares any two items as minHeap does, so with the same arity it
// moves them alike and returns the same minimum, ties included. A policy
// changing an item's key or tie calls fix (or removes the item first);
// an item's rank is never read.
type keyHeap struct {
	items []keyEntry
	quad  bool  // 4-ary, set before the first push
	touch int64 // sink of down's early loads
}

// root returns the slot of the minimum (see heapRoot).
func (h *keyHeap) root() int { return heapRoot(h.quad) }

// parent returns the parent slot of slot i.
func (h *keyHeap) parent(i int) int { return heapParent(h.quad, i) }

// set stores e at slot i and records the position in its item.
func (h *keyHeap) set(i int, e keyEntry) {
	h.items[i] = e
	e.it.index = i
}

// up moves e, which belongs at slot i, toward the root.
func (h *keyHeap) up(i int, e keyEntry) {
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
func (h *keyHeap) down(i int, e keyEntry) bool {
	if h.quad {
		return h.down4(i, e)
	}
	start, n := i, len(h.items)
	var touch float64
	for {
		c := 2 * i
		if c >= n {
			break
		}
		// Load the grandchildren (4i to 4i+3, one line), the
		// great-grandchildren (8i to 8i+7, two lines) and the level below
		// (16i to 16i+15, four lines) now, so that their misses overlap
		// the choices above instead of following them.
		if g := 4 * i; g+3 < n {
			touch += h.items[g].key
			if gg := 8 * i; gg+7 < n {
				touch += h.items[gg].key + h.items[gg+4].key
				if g3 := 16 * i; g3+15 < n {
					g3s := h.items[g3 : g3+16 : g3+16]
					touch += g3s[0].key + g3s[4].key + g3s[8].key + g3s[12].key
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
	h.touch = int64(touch)
	return i > start
}

// down4 is down for the 4-ary heap.
func (h *keyHeap) down4(i int, e keyEntry) bool {
	start, n := i, len(h.items)
	var touch float64
	for {
		first := 4*i - 8
		if first >= n {
			break
		}
		// Load the grandchildren (16i-40 to 16i-25, the children of all
		// four children: four lines) now, so that their misses overlap
		// the choice between the children instead of following it.
		if g := 4*first - 8; g+15 < n {
			gs := h.items[g : g+16 : g+16]
			touch += gs[0].key + gs[4].key + gs[8].key + gs[12].key
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
	h.touch = int64(touch)
	return i > start
}

// push inserts it.
func (h *keyHeap) push(it *item) {
	if len(h.items) == 0 {
		h.items = append(h.items, make([]keyEntry, h.root())...)
	}
	h.items = append(h.items, keyEntry{})
	h.up(len(h.items)-1, keyEntry{key: it.key, it: it})
}

// fix restores order after its key or tie changed.
func (h *keyHeap) fix(it *item) {
	i, e := it.index, keyEntry{key: it.key, it: it}
	if !h.down(i, e) {
		h.up(i, e)
	}
}

// remove deletes it from the heap.
func (h *keyHeap) remove(it *item) {
	i, last := it.index, len(h.items)-1
	e := h.items[last]
	h.items[last] = keyEntry{}
	h.items = h.items[:last]
	if i != last && !h.down(i, e) {
		h.up(i, e)
	}
	it.index = -1
}

// min returns the smallest item or nil.
func (h *keyHeap) min() *item {
	if r := h.root(); len(h.items) > r {
		return h.items[r].it
	}
	return nil
}

// len returns the number of items.
func (h *keyHeap) len() int { return max(len(h.items)-h.root(), 0) }

// holds reports whether it is in the heap.
func (h *keyHeap) holds(it *item) bool {
	return it.index >= h.root() && it.index < len(h.items) && h.items[it.index].it == it
}

// tieKey returns a keyHeap key for the order (k, tie), k integer-valued
// with |k| < 2^51 and span a power of two: k plus a fraction of at most
// 1/4 growing with tie, clamped to ±span. Rounding is monotone and k + 1/4
// exact, so the key never decreases along (k, tie) and equal keys have
// equal k: comparing keys, then ties where keys are equal, orders items
// exactly as comparing (k, tie) does, and the heap reads an item's tie
// only where the fraction did not tell two apart (ties past the clamp, or
// a k too large to leave the fraction its bits).
func tieKey(k float64, tie, span int64) float64 {
	t := min(max(tie, -span), span) + span
	return k + float64(t)/float64(8*span)
}
