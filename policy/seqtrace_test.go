package policy

import "math/rand/v2"

// seqReq is a request in flight in genSeqTrace.
type seqReq struct {
	seq    uint64
	blocks []BlockID // by position: shared prefix, own prompt, decode
	prompt int       // prompt blocks (SeqLen of each of them)
	total  int       // prompt + decode blocks when done (MaxLen)
	next   int       // position of the next block to read
	own    []BlockID // IDs to free (and reuse) when the request ends
}

// genSeqTrace builds a trace shaped like the Mooncake trace as the
// simulator replays it. Requests (sequences) read a prefix of a shared
// prefix chain, then prompt blocks of their own, then append decode blocks
// one by one, sometimes re-reading their recent window; up to three are in
// flight at once, so a shared prefix block is read by several sequences in
// turn and arrives each time with that sequence's Seq, Pos and SeqLen
// (applied in place, or through Set.Update). A request's own blocks are
// freed when it ends and their IDs reused by later requests; with
// sh.forgets shared blocks are sometimes freed too, and with sh.pins
// blocks are pinned and unpinned. IDs below universe/4 are shared.
func genSeqTrace(seed uint64, sh traceShape) []traceOp {
	const chain = 8
	g := &seqGen{r: rand.New(rand.NewPCG(seed, 0x73657173)), sh: sh, shared: max(sh.universe/4/chain, 1) * chain}
	for id := sh.universe - 1; id >= g.shared; id-- {
		g.pool = append(g.pool, BlockID(id))
	}
	g.ops = make([]traceOp, 0, sh.n)
	r := g.r
	var live []*seqReq
	var seq uint64
	for len(g.ops) < sh.n {
		if len(live) < 3 {
			seq++
			live = append(live, g.start(seq, chain))
		}
		k := r.IntN(len(live))
		q := live[k]
		switch x := r.Float64(); {
		case sh.pins && x < 0.02:
			g.ops = append(g.ops, traceOp{kind: opPin, id: BlockID(r.IntN(sh.universe))})
		case sh.forgets && x < 0.03:
			g.ops = append(g.ops, traceOp{kind: opForget, id: BlockID(r.IntN(g.shared))})
		case x < 0.25 && q.next > 0:
			g.emit(q, max(q.next-1-r.IntN(3), 0)) // the recent window
		case q.next < q.prompt:
			g.emit(q, q.next)
			q.next++
		case q.next < q.total && len(g.pool) > 0:
			id := g.take()
			q.own = append(q.own, id)
			q.blocks = append(q.blocks, id)
			g.emit(q, q.next)
			q.next++
		default: // done: free its own blocks for reuse
			for _, id := range q.own {
				g.ops = append(g.ops, traceOp{kind: opForget, id: id})
				g.pool = append(g.pool, id)
			}
			live = append(live[:k], live[k+1:]...)
		}
	}
	ops := g.ops[:sh.n]
	fillNext(ops)
	return ops
}

// seqGen is genSeqTrace's state: its random source and shape, the IDs
// below shared (the prefix chains), the free private IDs, reused
// last-freed first, and the ops so far.
type seqGen struct {
	r      *rand.Rand
	sh     traceShape
	shared int
	pool   []BlockID
	ops    []traceOp
}

// take removes the last-freed private ID from the pool and returns it.
func (g *seqGen) take() BlockID {
	id := g.pool[len(g.pool)-1]
	g.pool = g.pool[:len(g.pool)-1]
	return id
}

// start begins request seq: a prefix of one of the shared chains of chain
// blocks, then up to three prompt blocks of its own (fewer when the pool
// runs dry), and 1 to 12 decode blocks to come.
func (g *seqGen) start(seq uint64, chain int) *seqReq {
	q := &seqReq{seq: seq}
	c := g.r.IntN(g.shared / chain)
	for i := range 1 + g.r.IntN(chain) {
		q.blocks = append(q.blocks, BlockID(c*chain+i))
	}
	for range g.r.IntN(4) {
		if len(g.pool) > 0 {
			q.own = append(q.own, g.take())
		}
	}
	q.blocks = append(q.blocks, q.own...)
	q.prompt = len(q.blocks)
	q.total = q.prompt + 1 + g.r.IntN(12)
	return q
}

// emit appends a read of q's block at pos, with the metadata the sequence
// gives it at that point: SeqLen is the prompt while the prompt is read,
// then the blocks read so far.
func (g *seqGen) emit(q *seqReq, pos int) {
	units := int64(1)
	if g.sh.mixed {
		units = 1 << g.r.IntN(4)
	}
	seqLen := q.prompt
	if pos >= q.prompt {
		seqLen = pos + 1
	}
	if q.next > q.prompt {
		seqLen = max(seqLen, q.next)
	}
	m := Meta{
		Size: units * g.sh.unit, Tenant: uint32(q.seq % 4), Class: Class(g.r.IntN(4)),
		Priority: Priority(g.r.IntN(3)), Pinned: g.sh.pins && g.r.Float64() < 0.02,
		RefCount: int32(1 + g.r.IntN(3)), Lifetime: float64(g.r.IntN(200)),
		Seq: q.seq, Pos: int32(pos), SeqLen: int32(seqLen), MaxLen: int32(q.total),
	}
	g.ops = append(g.ops, traceOp{id: q.blocks[pos], meta: m, remeta: true, update: g.r.IntN(3) == 0})
}
