package trace

import (
	"fmt"
	"io"

	"github.com/kvtier/kvtier/policy"
)

func init() {
	registerWorkload("reasoning",
		"concurrent reasoning sequences: think blocks that complete (OpUpdate), output blocks, then OpFree",
		newReasoning, "pages", 64, "steps", 4000, "seqs", 4)
	registerWorkload("long_context",
		"a growing sequence read as pinned attention sinks plus a recent window, freed when full",
		newLongContext, "pages", 256, "steps", 8192, "sinks", 4, "window", 16)
}

// span emits one op for the blocks [pos, end) of a sequence, one record a
// call, so that finishing a sequence of any length takes constant memory.
type span struct {
	op       Op
	pos, end int
	rec      func(pos int) Record
}

// spans is a queue of spans, emitted before the next access.
type spans []span

func (q *spans) pop() (Record, bool) {
	for len(*q) > 0 {
		s := &(*q)[0]
		if s.pos < s.end {
			r := s.rec(s.pos)
			r.Op = s.op
			s.pos++
			return r, true
		}
		*q = (*q)[1:]
	}
	return Record{}, false
}

// Reads a reasoning sequence makes after appending each block.
const reasoningReads = 3

// rseq is one reasoning sequence.
type rseq struct {
	id                   uint64
	prompt, think, total int // prompt [0,prompt), think [prompt,prompt+think), output after
	n                    int // blocks appended
	reads                int // reads since the last append
	thinkDone            bool
}

type reasoning struct {
	gen
	r       *rng
	slots   []rseq
	nextID  uint64
	pending spans
}

// newReasoning builds reasoning: Seqs sequences run at once, taking steps
// round-robin (step t belongs to slot t mod Seqs). A sequence has
// total blocks (uniform in [Pages/2, Pages]): a prompt of max(1, total/8)
// blocks, then think blocks (50-75% of the rest), then output blocks (at
// least one). It first appends its prompt (one write a step), then
// alternates appending its next block (a write) with 3 reads: while
// thinking, a prompt block (probability 0.4, uniform) or a think block
// geometrically close to the newest (p = 0.35); while answering, a prompt
// block (0.3), a completed think block (0.2, uniform) or an output block
// close to the newest (0.5). Before its first output block it emits an
// OpUpdate of every think block from think_active to think_complete, and
// after its last reads an OpFree of every block; a new sequence then takes
// the slot. Blocks are keyed seq x Pages + pos. Meta: Class output_critical
// for prompt and output blocks, think_active then think_complete for think
// blocks; Seq, Pos, SeqLen (appended so far), MaxLen (total); Lifetime =
// the steps until the sequence is freed, estimated as its remaining
// appends and reads (this one included) times Seqs. OpUpdate and OpFree
// records carry the time of the next access and do not count as steps.
func newReasoning(p WorkloadParams) (Reader, error) {
	if p.Pages < 4 {
		return nil, fmt.Errorf("%w: pages=%d: want >= 4 (prompt, think and output blocks)", ErrBadParam, p.Pages)
	}
	g := &reasoning{gen: gen{p: p}, r: newRNG(p.Seed, 8), slots: make([]rseq, p.Seqs)}
	for i := range g.slots {
		g.slots[i] = g.newSeq()
	}
	return g, nil
}

func (g *reasoning) newSeq() rseq {
	total := g.p.Pages/2 + g.r.intn(g.p.Pages-g.p.Pages/2+1)
	prompt := max(1, total/8)
	think := max(1, (total-prompt)*(50+g.r.intn(26))/100)
	think = min(think, total-prompt-1)
	s := rseq{id: g.nextID, prompt: prompt, think: think, total: total}
	g.nextID++
	return s
}

// meta returns the metadata of block pos of s.
func (g *reasoning) meta(s *rseq, pos int) (uint64, policy.Meta) {
	key := s.id*uint64(g.p.Pages) + uint64(pos)
	m := g.baseMeta(key)
	m.Class = policy.ClassOutputCritical
	if pos >= s.prompt && pos < s.prompt+s.think {
		m.Class = policy.ClassThinkActive
		if s.thinkDone {
			m.Class = policy.ClassThinkComplete
		}
	}
	m.Seq, m.Pos, m.SeqLen, m.MaxLen = s.id, int32(pos), int32(s.n), int32(s.total)
	left := (s.total-s.n)*(reasoningReads+1) + reasoningReads - s.reads + 1
	m.Lifetime = float64(left * g.p.Seqs)
	return key, m
}

func (g *reasoning) span(op Op, s rseq, from, to int) {
	g.pending = append(g.pending, span{op: op, pos: from, end: to, rec: func(pos int) Record {
		key, m := g.meta(&s, pos)
		return Record{Time: g.t, Block: key, Meta: m}
	}})
}

func (g *reasoning) Next() (Record, error) {
	if r, ok := g.pending.pop(); ok {
		return r, nil
	}
	if g.done() {
		return Record{}, io.EOF
	}
	s := &g.slots[int(g.t)%len(g.slots)]
	switch {
	case s.n == s.total && s.reads == reasoningReads:
		g.span(OpFree, *s, 0, s.total)
		*s = g.newSeq()
		return g.Next()
	case s.n == s.prompt+s.think && s.reads == reasoningReads && !s.thinkDone:
		s.thinkDone = true
		g.span(OpUpdate, *s, s.prompt, s.prompt+s.think)
		return g.Next()
	case s.n < s.prompt || s.reads == reasoningReads:
		s.n++
		s.reads = 0
		if s.n == s.prompt {
			s.reads = reasoningReads // prefill: append the next block at once
		}
		key, m := g.meta(s, s.n-1)
		return g.access(key, true, m), nil
	}
	s.reads++
	var pos int
	u := g.r.float()
	switch {
	case !s.thinkDone && u < 0.4, s.thinkDone && u < 0.3:
		pos = g.r.intn(s.prompt)
	case !s.thinkDone:
		pos = max(s.prompt, s.n-1-g.r.geometric(0.35))
	case u < 0.5:
		pos = s.prompt + g.r.intn(s.think)
	default:
		pos = max(s.prompt+s.think, s.n-1-g.r.geometric(0.35))
	}
	key, m := g.meta(s, pos)
	return g.access(key, false, m), nil
}

// longContext is the state of long_context.
type longContext struct {
	gen
	r       *rng
	seq     uint64
	n       int // blocks in the sequence
	i       int // read index within the current decode step; -1 before the append
	middle  bool
	pending spans
}

// newLongContext builds long_context: one sequence grows by one block per
// decode step up to Pages blocks. A decode step appends block n (a write),
// then reads the attention sinks (blocks 0..Sinks-1, Pinned), the recent
// window (the up to Window blocks before the new one, sinks excluded) and,
// with probability 1/4, one uniform block between the sinks and the window
// (a retrieval head). When the sequence reaches Pages blocks its last step
// completes and every block gets an OpFree; a new sequence (Seq + 1)
// starts. Blocks are keyed seq x Pages + pos. Meta: Seq, Pos, SeqLen =
// blocks so far, MaxLen = Pages, Pinned for sinks; Lifetime = steps the
// sequence has left for sinks, steps until the block slides out of the
// window for window blocks, 0 (unknown) for middle blocks.
func newLongContext(p WorkloadParams) (Reader, error) {
	if p.Pages <= p.Sinks+1 {
		return nil, fmt.Errorf("%w: pages=%d: want > sinks+1 (%d)", ErrBadParam, p.Pages, p.Sinks+1)
	}
	return &longContext{gen: gen{p: p}, r: newRNG(p.Seed, 9), i: -1}, nil
}

func (g *longContext) meta(seq uint64, n, pos int) (uint64, policy.Meta) {
	p := &g.p
	key := seq*uint64(p.Pages) + uint64(pos)
	m := g.baseMeta(key)
	m.Seq, m.Pos, m.SeqLen, m.MaxLen = seq, int32(pos), int32(n), int32(p.Pages)
	perStep := float64(1 + p.Sinks + p.Window)
	switch {
	case pos < p.Sinks:
		m.Pinned = true
		m.Lifetime = float64(p.Pages-n) * perStep
	case pos >= n-1-p.Window:
		m.Lifetime = float64(pos-(n-1-p.Window)) * perStep
	}
	return key, m
}

func (g *longContext) Next() (Record, error) {
	if r, ok := g.pending.pop(); ok {
		return r, nil
	}
	if g.done() {
		return Record{}, io.EOF
	}
	p := &g.p
	if g.i < 0 {
		if g.n == p.Pages {
			seq, n := g.seq, g.n
			g.pending = append(g.pending, span{op: OpFree, end: n, rec: func(pos int) Record {
				key, m := g.meta(seq, n, pos)
				return Record{Time: g.t, Block: key, Meta: m}
			}})
			g.seq++
			g.n = 0
			return g.Next()
		}
		g.n++
		g.i = 0
		g.middle = g.r.intn(4) == 0
		key, m := g.meta(g.seq, g.n, g.n-1)
		return g.access(key, true, m), nil
	}
	sinks := min(p.Sinks, g.n-1)
	winStart := max(sinks, g.n-1-p.Window)
	reads := sinks + (g.n - 1 - winStart)
	var pos int
	switch {
	case g.i < sinks:
		pos = g.i
	case g.i < reads:
		pos = winStart + g.i - sinks
	case g.middle && winStart > sinks:
		pos = sinks + g.r.intn(winStart-sinks)
		g.middle = false
	default:
		g.i = -1
		return g.Next()
	}
	g.i++
	key, m := g.meta(g.seq, g.n, pos)
	return g.access(key, false, m), nil
}
