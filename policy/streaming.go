package policy

import "fmt"

func init() {
	Register(Info{
		Name: "streaming",
		Doc: "streaming protection (seed 003, after StreamingLLM): wraps another policy and never offers it the " +
			"first sink blocks of a sequence, its protected prefix, or its recent window",
		Wrapper: true,
		Params: []Param{
			{Name: "inner", Default: "lru", Doc: "policy choosing among the unprotected blocks; parameters this " +
				"wrapper does not declare go to it"},
			{Name: "sink", Default: "1", Doc: "attention-sink blocks at the start of every sequence, >= 0 " +
				"(seed 003: 4 tokens, within one 16-token block)"},
			{Name: "prefix", Default: "0", Doc: "protected prefix in blocks (a system prompt), >= 0; positions " +
				"below max(sink, prefix) are protected"},
			{Name: "window_min", Default: "2", Doc: "smallest recent window of a sequence, in blocks, >= 0"},
			{Name: "window_frac", Default: "0.25", Doc: "recent window as a share of the sequence length, in [0,1]"},
		},
		New: newStreamingFromParams,
	})
}

func newStreamingFromParams(p *Params, env Env) (Policy, error) {
	inner, sink, prefix := p.String("inner"), p.Int("sink"), p.Int("prefix")
	p.Check(sink >= 0 && sink <= 1<<30, "sink", "a block count >= 0")
	p.Check(prefix >= 0 && prefix <= 1<<30, "prefix", "a block count >= 0")
	w, err := windowParams(p)
	if err != nil {
		return nil, err
	}
	pol, err := NewFromSpec(Spec{Name: inner, Params: p.Unused()}, env)
	if err != nil {
		return nil, fmt.Errorf("inner policy: %w", err)
	}
	return NewStreaming(pol, int32(max(sink, prefix)), w), nil
}

// Streaming wraps a policy and keeps seed 003's protected blocks away from
// it: the first sink blocks of every sequence (attention sinks), a
// protected prefix (a system prompt), and the sequence's recent window (the
// last max(window_min, window_frac × length) blocks). The inner policy only
// ever holds the other resident blocks, so it never chooses a protected
// one; Victim reports false when every resident block is protected, and a
// Set then returns ErrNoRoom. A sequence's length is the largest SeqLen (or
// Pos+1) seen in any event of its blocks; as it grows, blocks that leave
// the recent window are admitted to the inner policy and become candidates
// again. Blocks without a sequence position (SeqLen 0) are never
// protected. A resident block whose Meta names another sequence or
// position at an access or update (a shared prefix block read by a new
// request) moves to that sequence, leaving or joining the inner policy as
// its protection changes. Every access and update is forwarded to the inner policy
// (protected blocks look non-resident to it).
//
// Events cost O(log n) plus the inner policy's. State: one entry per
// resident block and one per sequence with a resident block, plus the inner
// policy's.
type Streaming struct {
	inner     Policy
	protected int32 // positions below are always protected
	wins      seqWindows
	in        streamTable
	now       Time
}

// States of a resident block under Streaming.
const (
	streamInner  uint8 = iota // held by the inner policy
	streamWindow              // in its sequence's recent window
	streamPinned              // a sink or prefix block
)

// NewStreaming wraps inner, protecting positions below protected and the
// recent window w of every sequence.
func NewStreaming(inner Policy, protected int32, w recentWindow) *Streaming {
	return &Streaming{inner: inner, protected: protected, wins: newSeqWindows(w)}
}

// Inner returns the wrapped policy.
func (p *Streaming) Inner() Policy { return p.inner }

func (p *Streaming) release(b *Block) {
	if e, ok := p.in.get(b); ok && e.state == streamWindow {
		e.state = streamInner
		p.inner.Admit(b, p.now)
	}
}

// place (re)joins b to the sequence its Meta names, if any, and returns
// its state: a sink or prefix block, inside the window, or neither.
func (p *Streaming) place(e *streamEntry, b *Block) uint8 {
	p.wins.leave(&e.mem)
	if !hasSeq(b.Meta) {
		return streamInner
	}
	pinned := b.Meta.Pos < p.protected
	inWindow := p.wins.join(&e.mem, b, !pinned, p.release)
	switch {
	case pinned:
		return streamPinned
	case inWindow:
		return streamWindow
	}
	return streamInner
}

// learn takes in b's current metadata: a resident block that moved to
// another sequence or position rejoins (and goes to or leaves the inner
// policy when its protection changed); otherwise its sequence's length is
// updated.
func (p *Streaming) learn(b *Block, now Time) {
	e, ok := p.in.get(b)
	if !ok || !e.mem.moved(b.Meta) {
		p.wins.observe(b.Meta, p.release)
		return
	}
	was := e.state
	e.state = p.place(e, b)
	switch {
	case was == streamInner && e.state != streamInner:
		p.inner.Evict(b, now)
	case was != streamInner && e.state == streamInner:
		p.inner.Admit(b, now)
	}
}

// Access forwards the access and learns the sequence's length, releasing
// blocks that left its window.
func (p *Streaming) Access(b *Block, now Time) {
	p.now = now
	p.inner.Access(b, now)
	p.learn(b, now)
}

// Admit holds b if it is protected and hands it to the inner policy
// otherwise.
func (p *Streaming) Admit(b *Block, now Time) {
	p.now = now
	e := p.in.add(b)
	if e.state = p.place(e, b); e.state == streamInner {
		p.inner.Admit(b, now)
	}
}

// Update learns a sequence's new length and forwards the update.
func (p *Streaming) Update(b *Block, old Meta, now Time) {
	p.now = now
	p.learn(b, now)
	if u, ok := p.inner.(Updater); ok {
		u.Update(b, old, now)
	}
}

// Evict removes b; the inner policy is told when it held b.
func (p *Streaming) Evict(b *Block, now Time) {
	if e, ok := p.drop(b); ok && e.state == streamInner {
		p.inner.Evict(b, now)
	}
}

// drop removes b's entry, if b is resident, and returns it: readable
// until the next Admit.
func (p *Streaming) drop(b *Block) (*streamEntry, bool) {
	e, ok := p.in.get(b)
	if !ok {
		return nil, false
	}
	p.wins.leave(&e.mem)
	p.in.remove(e)
	return e, true
}

// Forget removes b here and in the inner policy.
func (p *Streaming) Forget(b *Block) {
	p.drop(b)
	p.inner.Forget(b)
}

// Victim returns the inner policy's victim among the unprotected blocks.
func (p *Streaming) Victim(now Time) (*Block, bool) { return p.inner.Victim(now) }

// Len returns the number of resident blocks, protected ones included.
func (p *Streaming) Len() int { return p.in.len() }
