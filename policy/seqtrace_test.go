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
	r := rand.New(rand.NewPCG(seed, 0x73657173))
	const chain = 8
	shared := max(sh.universe/4/chain, 1) * chain
	var pool []BlockID // free private IDs, reused last-freed first
	for id := sh.universe - 1; id >= shared; id-- {
		pool = append(pool, BlockID(id))
	}
	ops := make([]traceOp, 0, sh.n)
	var live []*seqReq
	var seq uint64
	emit := func(q *seqReq, pos int) {
		units := int64(1)
		if sh.mixed {
			units = 1 << r.IntN(4)
		}
		seqLen := q.prompt
		if pos >= q.prompt {
			seqLen = pos + 1
		}
		if q.next > q.prompt {
			seqLen = max(seqLen, q.next)
		}
		m := Meta{
			Size: units * sh.unit, Tenant: uint32(q.seq % 4), Class: Class(r.IntN(4)),
			Priority: Priority(r.IntN(3)), Pinned: sh.pins && r.Float64() < 0.02,
			RefCount: int32(1 + r.IntN(3)), Lifetime: float64(r.IntN(200)),
			Seq: q.seq, Pos: int32(pos), SeqLen: int32(seqLen), MaxLen: int32(q.total),
		}
		ops = append(ops, traceOp{id: q.blocks[pos], meta: m, remeta: true, update: r.IntN(3) == 0})
	}
	for len(ops) < sh.n {
		if len(live) < 3 {
			seq++
			q := &seqReq{seq: seq}
			c := r.IntN(shared / chain)
			for i := range 1 + r.IntN(chain) {
				q.blocks = append(q.blocks, BlockID(c*chain+i))
			}
			for range r.IntN(4) {
				if len(pool) > 0 {
					q.own = append(q.own, pool[len(pool)-1])
					pool = pool[:len(pool)-1]
				}
			}
			q.blocks = append(q.blocks, q.own...)
			q.prompt = len(q.blocks)
			q.total = q.prompt + 1 + r.IntN(12)
			live = append(live, q)
		}
		k := r.IntN(len(live))
		q := live[k]
		switch x := r.Float64(); {
		case sh.pins && x < 0.02:
			ops = append(ops, traceOp{kind: opPin, id: BlockID(r.IntN(sh.universe))})
		case sh.forgets && x < 0.03:
			ops = append(ops, traceOp{kind: opForget, id: BlockID(r.IntN(shared))})
		case x < 0.25 && q.next > 0:
			emit(q, max(q.next-1-r.IntN(3), 0)) // the recent window
		case q.next < q.prompt:
			emit(q, q.next)
			q.next++
		case q.next < q.total && len(pool) > 0:
			id := pool[len(pool)-1]
			pool = pool[:len(pool)-1]
			q.own = append(q.own, id)
			q.blocks = append(q.blocks, id)
			emit(q, q.next)
			q.next++
		default: // done: free its own blocks for reuse
			for _, id := range q.own {
				ops = append(ops, traceOp{kind: opForget, id: id})
				pool = append(pool, id)
			}
			live = append(live[:k], live[k+1:]...)
		}
	}
	ops = ops[:sh.n]
	fillNext(ops)
	return ops
}
