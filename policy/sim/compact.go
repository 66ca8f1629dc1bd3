package sim

import "github.com/kvtier/kvtier/policy"

// The compact engine replays blocks mode (one tier of unit blocks) with
// policies rewritten over dense block indices: every block's state, the
// engine's and its policy's, is one 16-byte cblk in one slice, and the
// policies' lists are intrusive lists of int32 indices into it. Nothing in
// it holds a pointer, so it costs the garbage collector nothing, and an
// event touches the block and its list neighbours only. Each compact
// policy makes exactly the choices of the policy package's policy of the
// same name (TestCompactMatchesEngine replays traces through both).

// cblk is one block's state in the compact engine.
type cblk struct {
	prev, next int32  // links in list q: prev toward the newest, next toward the oldest; -1 at the ends
	evicted    uint32 // access index of its last eviction plus one; 0 when none
	flags      uint8  // fSeen, fResident, fPinned, fVisited
	q          uint8  // the policy list holding it; qNone for none
	freq       uint8  // S3-FIFO's hit counter
}

// cblk flags.
const (
	fSeen     uint8 = 1 << iota // the block has had a record
	fResident                   // in the tier
	fPinned                     // its metadata says pinned
	fVisited                    // ARC: its ghost was hit; SIEVE: accessed since admission
)

// qNone is the list of a block no policy list holds.
const qNone uint8 = 0

// store is the blocks' state, shared by the engine and its policy.
type store struct{ b []cblk }

// ilist is an intrusive doubly linked list of blocks in a store: head is
// the newest, tail the oldest.
type ilist struct {
	head, tail int32
	n          int
}

func newIList() ilist { return ilist{head: -1, tail: -1} }

// pushFront inserts i, in no list, as the newest block of list q.
func (l *ilist) pushFront(b []cblk, i int32, q uint8) {
	x := &b[i]
	x.prev, x.next, x.q = -1, l.head, q
	if l.head >= 0 {
		b[l.head].prev = i
	} else {
		l.tail = i
	}
	l.head = i
	l.n++
}

// remove unlinks i, which l holds.
func (l *ilist) remove(b []cblk, i int32) {
	x := &b[i]
	if x.prev >= 0 {
		b[x.prev].next = x.next
	} else {
		l.head = x.next
	}
	if x.next >= 0 {
		b[x.next].prev = x.prev
	} else {
		l.tail = x.prev
	}
	x.prev, x.next, x.q = -1, -1, qNone
	l.n--
}

// moveToFront makes i, which l holds, the newest block.
func (l *ilist) moveToFront(b []cblk, i int32) {
	if l.head == i {
		return
	}
	q := b[i].q
	l.remove(b, i)
	l.pushFront(b, i, q)
}

// compact is a policy of the compact engine: the events of policy.Policy
// on block indices. Every resident block it holds is a candidate.
type compact interface {
	access(i int32)
	admit(i int32)
	evict(i int32)
	forget(i int32)
	victim() (int32, bool)
}

// newCompact returns the compact form of pol, a fresh policy built from
// the run's spec, or false when it has none. pol gives the parameters.
func newCompact(pol policy.Policy, s *store, env policy.Env) (compact, bool) {
	switch p := pol.(type) {
	case *policy.LRU:
		return &cLRU{s: s, l: newIList()}, true
	case *policy.FIFO:
		return &cFIFO{s: s, l: newIList()}, true
	case *policy.SIEVE:
		return &cSIEVE{s: s, l: newIList(), hand: -1}, true
	case *policy.ARC:
		return newCARC(s, env), true
	case *policy.S3FIFO:
		small, threshold := p.Shape()
		return newCS3FIFO(s, small, threshold, env), true
	}
	return nil, false
}

// capBlocks is policy's blockCap: the capacity a policy sizes its lists
// by, Env.CapacityBlocks or the most blocks it held resident.
type capBlocks struct{ fixed, high int }

func (c *capBlocks) observe(resident int) { c.high = max(c.high, resident) }
func (c *capBlocks) get() int             { return max(c.fixed, c.high, 1) }
func (c *capBlocks) share(frac float64) int {
	return max(int(frac*float64(c.get())+0.5), 1)
}
