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
}

// minHeap is an indexed binary min-heap ordered by (rank, key, tie).
type minHeap struct {
	items []*item
}

func (h *minHeap) less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.tie < b.tie
}

func (h *minHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index = i
	h.items[j].index = j
}

func (h *minHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *minHeap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			break
		}
		h.swap(i, c)
		i = c
	}
	return i > start
}

// push inserts it.
func (h *minHeap) push(it *item) {
	it.index = len(h.items)
	h.items = append(h.items, it)
	h.up(it.index)
}

// fix restores order after it's key or tie changed.
func (h *minHeap) fix(it *item) {
	if !h.down(it.index) {
		h.up(it.index)
	}
}

// remove deletes it from the heap.
func (h *minHeap) remove(it *item) {
	i, last := it.index, len(h.items)-1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	if i != last {
		h.fix(h.items[i])
	}
	it.index = -1
}

// min returns the smallest item or nil.
func (h *minHeap) min() *item {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

// len returns the number of items.
func (h *minHeap) len() int { return len(h.items) }

// reheap restores order after many keys changed at once, in O(n).
func (h *minHeap) reheap() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
