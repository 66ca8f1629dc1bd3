package policy

func init() {
	Register(Info{
		Name: "s3fifo",
		Doc: "S3-FIFO (Yang et al., SOSP'23): new blocks enter a small FIFO, blocks hit there move to a main " +
			"FIFO with 2-bit reinsertion, blocks evicted from the small FIFO are remembered in a ghost FIFO",
		Params: []Param{
			{Name: "small", Default: "0.1", Doc: "share of the capacity (in blocks) for the small FIFO, in (0,1)"},
			{Name: "threshold", Default: "1", Doc: "hits in the small FIFO that move a block to main, 1..3"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			small, thr := p.Float("small"), p.Int("threshold")
			p.Check(small > 0 && small < 1, "small", "a share in (0,1)")
			p.Check(thr >= 1 && thr <= 3, "threshold", "an integer in 1..3")
			return NewS3FIFO(small, thr, env), nil
		},
	})
}

// Queues of S3-FIFO, stored in node.queue.
const (
	s3Small uint8 = iota
	s3Main
	s3Ghost // evicted from S, in G
)

// S3FIFO is S3-FIFO (Yang et al., "FIFO queues are all you need for cache
// eviction", SOSP'23). New blocks enter the small FIFO S (10% of the
// capacity); a block that reaches the small FIFO's tail after threshold
// hits moves to the main FIFO M with its counter cleared, otherwise it is
// evicted and its ID goes to the ghost FIFO G. A block admitted while in G
// goes straight to M. M is FIFO with reinsertion: a tail block with a
// non-zero 2-bit counter (0..3, one per hit) is reinserted at the head with
// the counter decremented.
//
// Victim is amortised O(1): every reinsertion consumes a hit. State: one
// node per resident block plus G, which holds at most as many blocks as M's
// share of the capacity (90%); a ghost keeps its block's node, found
// through the block's slot like a resident's (see nodeTable).
type S3FIFO struct {
	nodes       nodeTable // residents and ghosts
	small, main list
	ghosts      list // G, newest at the front
	cap         blockCap
	smallShare  float64
	threshold   int64
}

// NewS3FIFO returns an empty S3-FIFO policy with the given small-queue share
// and move threshold.
func NewS3FIFO(smallShare float64, threshold int, env Env) *S3FIFO {
	return &S3FIFO{
		cap:        newBlockCap(env),
		smallShare: smallShare,
		threshold:  int64(threshold),
	}
}

// Shape returns the small FIFO's share of the capacity and the hits that
// move a block from the small FIFO to main, as the policy was built with.
func (p *S3FIFO) Shape() (small float64, threshold int) { return p.smallShare, int(p.threshold) }

// Access counts a hit on a resident block, saturating at 3.
func (p *S3FIFO) Access(b *Block, _ Time) {
	if n, ok := p.nodes.get(b); ok && n.queue != s3Ghost && n.freq < 3 {
		n.freq++
	}
}

// Admit inserts b into M if it is a ghost, else into S.
func (p *S3FIFO) Admit(b *Block, _ Time) {
	n, ok := p.nodes.get(b)
	switch {
	case !ok:
		n = p.nodes.add(b)
		n.queue = s3Small
	case n.queue == s3Ghost:
		p.ghosts.remove(n)
		n.queue = s3Main
	default:
		return
	}
	p.queue(n.queue).pushFront(n)
	p.cap.observe(p.Len())
}

func (p *S3FIFO) queue(q uint8) *list {
	if q == s3Main {
		return &p.main
	}
	return &p.small
}

// Evict removes b; a block leaving S is remembered in G.
func (p *S3FIFO) Evict(b *Block, _ Time) {
	n, ok := p.nodes.get(b)
	if !ok || n.queue == s3Ghost {
		return
	}
	p.queue(n.queue).remove(n)
	if n.queue != s3Small {
		p.nodes.remove(n)
		return
	}
	n.freq, n.queue = 0, s3Ghost
	p.ghosts.pushFront(n)
	for limit := p.ghostLimit(); p.ghosts.len() > limit; {
		old := p.ghosts.back()
		p.ghosts.remove(old)
		p.nodes.remove(old)
	}
}

// ghostLimit is M's share of the capacity: G holds as many IDs as M.
func (p *S3FIFO) ghostLimit() int { return max(p.cap.get()-p.cap.share(p.smallShare), 1) }

// Forget removes b and its ghost.
func (p *S3FIFO) Forget(b *Block) {
	if n, ok := p.nodes.get(b); ok {
		if n.queue == s3Ghost {
			p.ghosts.remove(n)
		} else {
			p.queue(n.queue).remove(n)
		}
		p.nodes.remove(n)
	}
}

// Victim evicts from S while S holds at least its share of the capacity,
// else from M, moving and reinserting blocks on the way as the paper's
// EVICTS and EVICTM do. The returned block stays in its queue until Evict.
func (p *S3FIFO) Victim(Time) (*Block, bool) {
	target := p.cap.share(p.smallShare)
	for {
		if p.small.len() > 0 && (p.small.len() >= target || p.main.len() == 0) {
			t := p.small.back()
			if t.freq < p.threshold {
				return t.b, true
			}
			p.small.remove(t)
			t.freq, t.queue = 0, s3Main
			p.main.pushFront(t)
			continue
		}
		t := p.main.back()
		if t == nil {
			return nil, false
		}
		if t.freq == 0 {
			return t.b, true
		}
		t.freq--
		p.main.moveToFront(t)
	}
}

// Len returns the number of resident blocks.
func (p *S3FIFO) Len() int { return p.small.len() + p.main.len() }
