package trace

import (
	"fmt"
	"io"
)

func init() {
	registerWorkload("prefix_sharing",
		"Mooncake-like requests that share prefixes: system prompts, popular documents, multi-turn "+
			"conversations that re-read their history, and branches from earlier turns",
		newPrefixSharing, "pages", 512, "steps", 200000, "hot", 4, "seqs", 64, "run", 4, "turns", 4)
}

// Block key ranges of prefix_sharing: system prompts, documents, then
// conversation blocks numbered from convBase.
const (
	sysBase  = 0
	docBase  = 1 << 32
	convBase = 1 << 40
	// maxConvBlocks ends a conversation whose prompt would grow beyond it.
	maxConvBlocks = 256
)

// conversation is the prompt of a conversation so far and the lengths of
// its prompt at the end of each turn (the points a branch may go back to).
type conversation struct {
	blocks []uint64
	turns  []int
}

// prefixSharing emits requests as the Mooncake reader does: each request
// reads its prompt blocks in order (Seq = request, Pos = index, SeqLen =
// prompt length, RefCount = requests so far that read the block).
type prefixSharing struct {
	gen
	r      *rng
	sys    zipf
	docs   zipf
	active []*conversation
	refs   map[uint64]int32
	next   uint64 // next new conversation block
	seq    uint64
	req    []uint64
	pos    int
}

// newPrefixSharing builds prefix_sharing. Seqs conversations are active at
// a time; each request picks one uniformly. A new conversation's first
// prompt is one of Hot system prompts (Zipf popularity, 1-4 blocks), with
// probability 1/2 one of Pages documents (Zipf popularity, 4-35 blocks),
// and a user message of 1+geometric blocks (mean Run). A later turn
// re-reads the conversation's prompt, then its previous answer (1 to
// 2 x Run new blocks) and a new message; with probability 1/4 it branches
// instead from the end of a uniformly chosen earlier turn (a regenerated
// answer or an edited question). After each request the conversation ends
// with probability 1/Turns (or when its prompt reaches 256 blocks) and a
// new one takes its place. Steps counts block reads.
func newPrefixSharing(p WorkloadParams) (Reader, error) {
	for _, c := range []struct {
		name string
		v    int
	}{{"hot", p.Hot}, {"seqs", p.Seqs}, {"run", p.Run}, {"turns", p.Turns}, {"pages", p.Pages}} {
		if c.v < 1 {
			return nil, fmt.Errorf("%w: %s=%d: want >= 1", ErrBadParam, c.name, c.v)
		}
	}
	w := &prefixSharing{gen: gen{p: p}, r: newRNG(p.Seed, 30), sys: newZipf(p.Hot), docs: newZipf(p.Pages),
		refs: map[uint64]int32{}, next: convBase}
	for range p.Seqs {
		w.active = append(w.active, w.start())
	}
	return w, nil
}

// start returns a new conversation's first prompt.
func (w *prefixSharing) start() *conversation {
	c := &conversation{}
	s := uint64(w.sys.draw(w.r))
	for i := range 1 + mix64(s+1)%4 {
		c.blocks = append(c.blocks, sysBase+s<<8+i)
	}
	if w.r.float() < 0.5 {
		d := uint64(w.docs.draw(w.r))
		for i := range 4 + mix64(d+docBase)%32 {
			c.blocks = append(c.blocks, docBase+d<<8+i)
		}
	}
	w.fresh(c, 1+w.r.geometric(1/float64(w.p.Run)))
	return c
}

// fresh appends n new blocks to c.
func (w *prefixSharing) fresh(c *conversation, n int) {
	for range n {
		c.blocks = append(c.blocks, w.next)
		w.next++
	}
}

// request picks a conversation, builds its next prompt into req and
// advances the conversation.
func (w *prefixSharing) request() {
	i := w.r.intn(len(w.active))
	c := w.active[i]
	if len(c.turns) > 0 {
		if w.r.float() < 0.25 {
			t := w.r.intn(len(c.turns))
			c.blocks, c.turns = c.blocks[:c.turns[t]], c.turns[:t+1]
		}
		w.fresh(c, 1+w.r.intn(2*w.p.Run))
		w.fresh(c, 1+w.r.geometric(1/float64(w.p.Run)))
	}
	w.req = append(w.req[:0], c.blocks...)
	w.pos = 0
	w.seq++
	c.turns = append(c.turns, len(c.blocks))
	if w.r.float() < 1/float64(w.p.Turns) || len(c.blocks) >= maxConvBlocks {
		w.active[i] = w.start()
	}
}

// Next returns the next block read.
func (w *prefixSharing) Next() (Record, error) {
	if w.done() {
		return Record{}, io.EOF
	}
	if w.pos >= len(w.req) {
		w.request()
	}
	id := w.req[w.pos]
	w.refs[id]++
	m := w.baseMeta(id)
	m.Seq, m.Pos, m.SeqLen, m.RefCount = w.seq, int32(w.pos), int32(len(w.req)), w.refs[id]
	w.pos++
	return w.access(id, false, m), nil
}
