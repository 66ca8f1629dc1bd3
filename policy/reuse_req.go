package policy

import "math/bits"

func init() {
	Register(Info{
		Name: "reuse_req",
		Doc: "reuse_lru with request-level classes: a block's class adds to its reads so far and frontier the " +
			"number of new (first-read) blocks of the request that read it, known when the request ends; the " +
			"request's blocks are then re-keyed, and labels are reuses within a horizon of the last access",
		Params: []Param{
			{Name: "window", Default: "32", Doc: "the learned counts halve every window x capacity accesses, > 0"},
			{Name: "horizon", Default: "8", Doc: "a reuse counts as a label if it comes within horizon x capacity " +
				"accesses of the previous access, > 0"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			w, h := p.Float("window"), p.Float("horizon")
			p.Check(w > 0 && w < 1e6, "window", "a factor > 0")
			p.Check(h > 0 && h < 1e6, "horizon", "a factor > 0")
			return NewReuseReq(w, h, env), nil
		},
	})
}

// reqNewBuckets is the number of new-block classes of a request: 0, 1,
// 2-3, 4-7, 8-15 and 16 or more first-read blocks (log2 buckets).
const reqNewBuckets = 6

// reqMaxPending bounds the accesses held for one request: where Seq
// does not change (callers without requests) they are classified in
// batches of this many.
const reqMaxPending = 4096

// reqClasses is the number of classes: new-block buckets x reuse_lru's
// classes (reads so far x frontier).
const reqClasses = reqNewBuckets * reuseClasses

// ReuseReq is ReuseLRU with a request-level feature. In a KV trace the
// blocks of one request share its fate: when the conversation goes on,
// the next turn re-reads all of them. How many blocks the request added
// (blocks read for the first time) tells turns that append a short
// message, which often go on, from turns that paste a long document,
// which rarely do. That count is known only when the request ends (the
// next access of another Meta.Seq), so a request's accesses are held
// until then, counted in their final classes and their resident blocks
// re-keyed (O(1) amortized per access).
//
// Labels. An access is labelled by the block's next access, at most
// once, if that comes within horizon capacities of accesses: in the same
// request, the earlier access is marked and its class's reuse count
// gains one when the request ends; otherwise the block's last access in
// its request leaves a ghost (its class and step) when the request ends,
// and the next access reads and deletes it. Reuses further apart than
// the horizon are not labels: no policy keeps a block that long at this
// capacity. Order and decay are ReuseLRU's: key = step of the access +
// E x p(class)/p̄.
//
// State: one entry per resident block, one ghost per block accessed
// within the horizon (in reqGhosts, a slot the block's entry points to;
// the entry of a block no longer resident is kept while its ghost lives),
// the class counts and the current request's accesses (with a map from
// each block to its last access there, at most reqMaxPending entries). A
// block forgotten before its request ends (a freed decode block) still
// leaves a ghost then, by ID in a small map (orphans) since its *Block may
// come back as another one, unless its Block was reused for another ID;
// the ghost expires with the horizon.
type ReuseReq struct {
	lifetimes
	classCounts
	horizon float64
	ghosts  reqGhosts
	orphans map[BlockID]reqGhost // ghosts of blocks forgotten during their request
	swept   int64                // step of the last sweep
	cutoff  int64                // the last sweep's step minus the horizon (see dead)
	sweeps  uint32               // sweeps so far
	req     reqState
}

// reqState is the request being read: its Seq, its accesses so far, how
// many of them read a block for the first time, the index in pending of
// each block's last access (a map kept only above reqScan accesses; below,
// pending is scanned) and the blocks forgotten meanwhile.
type reqState struct {
	seq     uint64
	newBlks int
	pending []reqAccess
	last    map[BlockID]int
	forgot  map[*Block]struct{}
}

// reqAccess is one access of the current request; reused when the
// request read its block again within the horizon.
type reqAccess struct {
	b      *Block
	id     BlockID
	step   int64
	reads  int64
	front  bool
	reused bool
}

// NewReuseReq returns an empty policy whose counts halve every window
// capacities of accesses and whose labels look horizon capacities ahead.
func NewReuseReq(window, horizon float64, env Env) *ReuseReq {
	return &ReuseReq{lifetimes: lifetimes{cap: newBlockCap(env)}, classCounts: newClassCounts(reqClasses, window), horizon: horizon,
		req: reqState{last: map[BlockID]int{}}}
}

// reqClass returns the class of an access with reads reads in a request
// that added newBlks blocks.
func reqClass(front bool, reads int64, newBlks int) uint8 {
	nb := min(bits.Len(uint(newBlks)), reqNewBuckets-1)
	rb := min(bits.Len64(uint64(max(reads, 1)))-1, reuseReadBuckets-1)
	c := nb*reuseClasses + rb
	if front {
		c += reuseReadBuckets
	}
	return uint8(c)
}

// Access learns from the access, ends the previous request if b belongs
// to another one, and gives a resident block a provisional key.
func (p *ReuseReq) Access(b *Block, _ Time) {
	if b.Meta.Seq != p.req.seq || len(p.req.pending) == 0 || len(p.req.pending) >= reqMaxPending {
		p.finish()
		p.req.seq = b.Meta.Seq
	}
	e, resident, reads := p.touch(b)
	if g, ok := p.takeGhost(b, e); ok {
		// A ghost labels one access: deleted when read, so the later
		// accesses of the block in this request (whose ghosts are written
		// only when it ends) do not count the same earlier access again.
		if float64(p.clock-g.step) <= p.horizon*float64(p.cap.get()) {
			p.reuse[g.class]++
			p.sumR++
		}
	}
	if i, ok := p.req.lastOf(b.ID); ok && float64(p.clock-p.req.pending[i].step) <= p.horizon*float64(p.cap.get()) {
		p.req.pending[i].reused = true // labelled in its class when the request ends
	}
	if b.Meta.RefCount <= 1 && !resident {
		p.req.newBlks++
	}
	front := frontier(&b.Meta)
	p.req.add(reqAccess{b: b, id: b.ID, step: p.clock, reads: reads, front: front})
	p.decay(p.cap.get())
	p.sweep()
	p.expire()
	if resident {
		e.class = reqClass(front, reads, p.req.newBlks)
		p.place(e, p.clock)
		p.h.fix(&e.it)
	}
}
