package policy

func init() {
	Register(Info{
		Name: "windowed_recency",
		Doc: "windowed recency (seed 003's recent window, made soft): evict blocks outside their sequence's " +
			"recent window first, least recently used first, and blocks inside a window only when no other is left",
		Params: []Param{
			{Name: "window_min", Default: "2", Doc: "smallest recent window of a sequence, in blocks, >= 0"},
			{Name: "window_frac", Default: "0.25", Doc: "recent window as a share of the sequence length, in [0,1]"},
		},
		New: func(p *Params, _ Env) (Policy, error) {
			w, err := windowParams(p)
			return NewWindowed(w), err
		},
	})
}

// windowParams reads window_min and window_frac.
func windowParams(p *Params) (recentWindow, error) {
	w := recentWindow{Min: int32(p.Int("window_min")), Frac: p.Float("window_frac")}
	p.Check(w.Min >= 0 && int(w.Min) == p.Int("window_min"), "window_min", "a block count >= 0")
	p.Check(w.Frac >= 0 && w.Frac <= 1, "window_frac", "a share in [0,1]")
	return w, p.Err()
}

// Windowed is windowed recency: seed 003's per-sequence recent window (the
// last max(window_min, window_frac × length) blocks of a sequence, which
// attention reads at every decode step) used as a soft preference rather
// than streaming's hard protection. Blocks outside every window (and blocks
// without a sequence position, SeqLen 0) are evicted first, least recently
// used first; blocks inside a window go only when no other block is left,
// also least recently used first. A sequence's length is the largest
// SeqLen (or Pos+1) seen in any event of its blocks, so as a sequence grows
// its older blocks leave the window and become ordinary candidates. A
// resident block whose Meta names another sequence or position at an
// access or update (a shared prefix block read by a new request) moves to
// that sequence. Events are O(log n). State: one entry per resident block and one per sequence
// with a resident block.
type Windowed struct {
	h    minHeap
	wins seqWindows
	in   entryTable[windowedEntry, *windowedEntry]
	step int64 // logical step: events so far
}

type windowedEntry struct {
	it  item      // in h; rank 1 inside a window
	mem seqMember // its sequence, when its Meta gives one
}

func (e *windowedEntry) slotBlock() *Block { return e.it.b }
func (e *windowedEntry) slotOwner() any    { return e.it.owner }
func (e *windowedEntry) setSlot(b *Block, owner any) {
	e.it.b, e.it.owner = b, owner
}

// NewWindowed returns an empty windowed-recency policy.
func NewWindowed(w recentWindow) *Windowed {
	return &Windowed{h: minHeap{quad: true}, wins: newSeqWindows(w)} // ties are unique steps
}

func (p *Windowed) release(b *Block) {
	if e, ok := p.in.get(b); ok {
		e.it.rank = 0
		p.h.fix(&e.it)
	}
}

// place (re)joins e's block to the sequence its Meta names, if any, and
// ranks it by whether it is inside the window.
func (p *Windowed) place(e *windowedEntry) {
	p.wins.leave(&e.mem)
	e.it.rank = 0
	if hasSeq(e.it.b.Meta) && p.wins.join(&e.mem, e.it.b, true, p.release) {
		e.it.rank = 1
	}
	p.h.fix(&e.it)
}

// learn takes in b's current metadata: a resident block that moved to
// another sequence or position rejoins; otherwise its sequence's length is
// updated.
func (p *Windowed) learn(b *Block) (*windowedEntry, bool) {
	e, ok := p.in.get(b)
	if ok && e.mem.moved(b.Meta) {
		p.place(e)
		return e, true
	}
	p.wins.observe(b.Meta, p.release)
	return e, ok
}

// Access makes a resident block the most recent of its group and learns
// its sequence's length.
func (p *Windowed) Access(b *Block, _ Time) {
	p.step++
	tick := p.step
	if e, ok := p.learn(b); ok {
		e.it.tie = tick
		p.h.fix(&e.it)
	}
}

// Admit inserts b as the most recent block of its group.
func (p *Windowed) Admit(b *Block, _ Time) {
	p.step++
	e := p.in.add(b)
	e.it.tie = p.step
	p.h.push(&e.it)
	p.place(e)
}

// Update learns a sequence's new length, or the block's new sequence or
// position, from changed metadata.
func (p *Windowed) Update(b *Block, _ Meta, _ Time) { p.learn(b) }

// Evict removes b.
func (p *Windowed) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b.
func (p *Windowed) Forget(b *Block) {
	e, ok := p.in.get(b)
	if !ok {
		return
	}
	p.wins.leave(&e.mem)
	p.h.remove(&e.it)
	p.in.remove(e)
}

// Victim returns the least recently used block outside every window, or
// inside one when no other is left.
func (p *Windowed) Victim(Time) (*Block, bool) {
	if it := p.h.min(); it != nil {
		return it.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *Windowed) Len() int { return p.in.len() }
