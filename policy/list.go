package policy

// node is an element of an intrusive doubly linked list of blocks. Policies
// that keep blocks in recency or insertion order embed their per-block state
// next to it. What LRU reads and writes of a victim (b, tag, at, next:
// see nodeTable.drop) comes first, within 32 bytes, so that at most two
// cache lines hold it and LRU's lookahead fetches both.
type node struct {
	b       *Block
	visited bool
	queue   uint8
	inSlot  bool   // the block's slot holds the node (else over does), in the padding
	tag     uint32 // the caller's tag of the block (Tagged), in the padding
	at      Time
	next    *node
	prev    *node
	owner   *nodeTable // the table holding the node, if any
	// Per-policy state, so most policies need one map of *node only.
	freq int64
}

// list is a doubly linked list with a sentinel. The front is the most
// recent insertion; the back is the oldest.
type list struct {
	root node
	n    int
}

func (l *list) lazyInit() {
	if l.root.next == nil {
		l.root.next, l.root.prev = &l.root, &l.root
	}
}

// pushFront inserts n at the front.
func (l *list) pushFront(n *node) {
	l.lazyInit()
	n.prev, n.next = &l.root, l.root.next
	l.root.next.prev = n
	l.root.next = n
	l.n++
}

// remove unlinks n, which must be in l.
func (l *list) remove(n *node) {
	n.prev.next = n.next
	n.next.prev = n.prev
	n.prev, n.next = nil, nil
	l.n--
}

// moveToFront moves n, which must be in l, to the front.
func (l *list) moveToFront(n *node) {
	if l.root.next == n {
		return
	}
	l.remove(n)
	l.pushFront(n)
}

// back returns the oldest element or nil.
func (l *list) back() *node {
	if l.n == 0 {
		return nil
	}
	return l.root.prev
}

// front returns the newest element or nil.
func (l *list) front() *node {
	if l.n == 0 {
		return nil
	}
	return l.root.next
}

// prevOf returns the element after n toward the front, or nil.
func (l *list) prevOf(n *node) *node {
	if n.prev == &l.root {
		return nil
	}
	return n.prev
}

// len returns the number of elements.
func (l *list) len() int { return l.n }
