package policy

import "math"

// recentWindow is seed 003's per-sequence recent window: the last
// max(Min, ceil(Frac*length)) positions of a sequence. Seed 003 counts
// tokens (max(32, len/4)); kvtier counts blocks, so the defaults are 2
// blocks (32 tokens at 16 tokens a block) and a quarter.
type recentWindow struct {
	Min  int32
	Frac float64
}

// start returns the first position inside the window of a sequence of
// length n. It never decreases as n grows.
func (w recentWindow) start(n int32) int32 {
	return n - max(w.Min, int32(math.Ceil(w.Frac*float64(n))))
}

// seqState is what seqWindows knows of one sequence.
type seqState struct {
	seq    uint64  // the sequence's ID, its key in seqWindows.seqs
	length int32   // longest length seen: max of SeqLen and Pos+1
	window minHeap // resident blocks inside the window, by position
	blocks int     // resident blocks joined
}

// seqMember is a resident block's membership of its sequence. It records
// the sequence and position the block joined with, so that leaving finds
// the same sequence even after the block's Meta changed: a shared prefix
// block read by a new request arrives with that request's Seq (the
// simulator and Set.Update both change Meta in place).
type seqMember struct {
	win item      // entry in st.window while inside the window (index >= 0)
	st  *seqState // nil when not joined
	pos int32     // Pos when joined
}

// moved reports whether meta places the block elsewhere than where it
// joined: another sequence or position, or in or out of any sequence.
func (m *seqMember) moved(meta Meta) bool {
	if m.st == nil {
		return hasSeq(meta)
	}
	return !hasSeq(meta) || meta.Seq != m.st.seq || meta.Pos != m.pos
}

// seqWindows tracks, per sequence with resident blocks, the sequence's
// length and which of its resident blocks are inside its recent window, so
// that blocks leaving the window as the sequence grows are found in
// O(log n) each. A block joins with its Seq and Pos at that time; when its
// Meta later names another sequence or position, its policy calls leave
// and join again (see seqMember.moved). Blocks with SeqLen <= 0 carry no
// sequence position and are never joined. State: one entry per sequence
// with a joined block; the states of sequences whose last block left are
// recycled, with their window's slice, so a new sequence allocates nothing
// once as many sequences as at the busiest time have come and gone.
type seqWindows struct {
	w    recentWindow
	seqs map[uint64]*seqState
	free []*seqState
}

func newSeqWindows(w recentWindow) seqWindows {
	return seqWindows{w: w, seqs: map[uint64]*seqState{}}
}

// hasSeq reports whether m places its block in a sequence.
func hasSeq(m Meta) bool { return m.SeqLen > 0 }

// join records resident block b, which must not be joined, as a member of
// the sequence its Meta names. If watch is false the block only informs
// the sequence's length. It returns whether the block is inside the
// window; release is called for other blocks that the block's metadata
// pushed out of it.
func (s *seqWindows) join(mem *seqMember, b *Block, watch bool, release func(*Block)) bool {
	m := b.Meta
	st, ok := s.seqs[m.Seq]
	if !ok {
		st = s.newState(m.Seq)
		s.seqs[m.Seq] = st
	}
	st.blocks++
	*mem = seqMember{win: item{b: b, index: -1}, st: st, pos: m.Pos}
	s.grow(st, m, release)
	if !watch || m.Pos < s.w.start(st.length) {
		return false
	}
	mem.win.key = float64(m.Pos)
	st.window.push(&mem.win)
	return true
}

// leave forgets a block's membership; it does nothing for a block that is
// not joined.
func (s *seqWindows) leave(mem *seqMember) {
	st := mem.st
	if st == nil {
		return
	}
	if mem.win.index >= 0 {
		st.window.remove(&mem.win)
	}
	if st.blocks--; st.blocks <= 0 {
		delete(s.seqs, st.seq)
		s.free = append(s.free, st)
	}
	mem.st = nil
}

// newState returns an empty state for sequence seq, recycled if one is
// free.
func (s *seqWindows) newState(seq uint64) *seqState {
	n := len(s.free)
	if n == 0 {
		return &seqState{seq: seq}
	}
	st := s.free[n-1]
	s.free = s.free[:n-1]
	win := st.window
	clear(win.items)
	win.items = win.items[:0]
	*st = seqState{seq: seq, window: win}
	return st
}

// observe learns the length of m's sequence, if it has resident blocks,
// and calls release for each block that left the window.
func (s *seqWindows) observe(m Meta, release func(*Block)) {
	if !hasSeq(m) {
		return
	}
	if st, ok := s.seqs[m.Seq]; ok {
		s.grow(st, m, release)
	}
}

func (s *seqWindows) grow(st *seqState, m Meta, release func(*Block)) {
	n := max(m.SeqLen, m.Pos+1)
	if n <= st.length {
		return
	}
	st.length = n
	start := float64(s.w.start(n))
	for it := st.window.min(); it != nil && it.key < start; it = st.window.min() {
		st.window.remove(it)
		release(it.b)
	}
}
