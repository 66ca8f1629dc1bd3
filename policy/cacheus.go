package policy

func init() {
	Register(Info{
		Name: "cacheus",
		Doc: "CACHEUS (Rodriguez et al., FAST'21): regret minimisation over a scan-resistant LRU (SR-LRU) and a " +
			"churn-resistant LFU (CR-LFU) expert with a learning rate that adapts to the hit rate",
		Params: []Param{
			{Name: "learning_rate", Default: "0.45", Doc: "initial λ, adapted every capacity's worth of requests, in [0.001,1]"},
			{Name: "discount", Default: "0.005", Doc: "reward of a regret one capacity's worth of requests old, in (0,1]"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			lr, d := p.Float("learning_rate"), p.Float("discount")
			p.Check(lr >= cacheusMinLR && lr <= 1, "learning_rate", "a number in [0.001,1]")
			p.Check(d > 0 && d <= 1, "discount", "a number in (0,1]")
			return NewCacheus(lr, d, env), nil
		},
	})
}

// Segments of SR-LRU, stored in node.queue while a block is resident.
const (
	segSR uint8 = iota // scan-resistant: new and demoted blocks
	segR               // reused blocks
)

const (
	cacheusMinLR   = 0.001
	cacheusUnlearn = 10 // windows without improvement before λ restarts
)

// Cacheus is CACHEUS (Rodriguez et al., "Learning Cache Replacement with
// CACHEUS", FAST'21): LeCaR's regret minimisation (see regretLearner) over
// two experts that resist the workload primitives LRU and LFU fail on.
//
// SR-LRU splits the residents into SR (new blocks, and blocks demoted from
// R) and R (blocks reused while resident or readmitted from the history),
// and proposes SR's LRU block. A hit in SR moves a block to R; R's overflow
// beyond c - |SR target| is demoted to SR's MRU end. The SR target adapts as
// ARC's p does: a history hit on a block that left SR new (SR too small to
// see its reuse) grows it by max(1, demoted/new); a hit on a demoted block
// in SR (R too small) shrinks it by max(1, new/demoted), where demoted
// counts demoted residents and new counts new-evicted history entries.
//
// CR-LFU proposes the least frequent block, the most recently used among
// equals, so under churn the older equally cold blocks stay.
//
// The learning rate adapts every window of c requests (Access calls): if λ
// changed over the last window, it moves again by the same step in the same
// direction when the hit rate rose and in the opposite one when it did not;
// if λ did not change and the hit rate was zero or did not rise for 10
// windows, λ restarts at a random value in [0.001, 1]. Randomness comes from
// a generator seeded from Env.Seed.
//
// Access, Admit, Evict and Forget are O(log n) (the CR-LFU heap) apart from
// demotions out of R, each paid for by an earlier move into R (amortised
// O(log n)); Victim is O(1). State: one entry per resident block and at
// most c history entries, c the capacity in blocks.
type Cacheus struct {
	entries xentries
	sr, r   list
	lfu     keyHeap // key = lfuKey(freq, tie)
	cap     blockCap
	learn   regretLearner
	srFrac  float64 // SR target as a share of c
	demoted int     // demoted residents in SR
	newHist int     // history entries that left SR new

	reqs, hits     int64 // in the current window
	prevHR, prevLR float64
	unlearn        int
}

// NewCacheus returns an empty CACHEUS policy.
func NewCacheus(learningRate, discount float64, env Env) *Cacheus {
	return &Cacheus{
		cap:    newBlockCap(env),
		learn:  newRegretLearner(learningRate, discount, env.Seed),
		srFrac: 0.5,
		prevLR: learningRate,
	}
}

// Weights returns the weights of the SR-LRU and CR-LFU experts.
func (p *Cacheus) Weights() (srlru, crlfu float64) { return p.learn.w[0], p.learn.w[1] }

// LearningRate returns the current λ.
func (p *Cacheus) LearningRate() float64 { return p.learn.lr }

func (p *Cacheus) seg(q uint8) *list {
	if q == segR {
		return &p.r
	}
	return &p.sr
}

// adaptSR moves the SR target by delta blocks, keeping both SR and R at
// least one block.
func (p *Cacheus) adaptSR(delta float64) {
	c := float64(p.cap.get())
	p.srFrac = min(max(p.srFrac+delta/c, 1/c), 1-1/c)
}

// Access counts a hit or miss, runs SR-LRU's moves and the regret of a
// history hit, and adapts the learning rate at the end of a window.
func (p *Cacheus) Access(b *Block, _ Time) {
	p.learn.request()
	p.reqs++
	if e, ok := p.entries.get(b); ok {
		e.it.freq++
		if e.ghost {
			if e.wasNew && !e.n.visited {
				p.adaptSR(max(1, float64(p.demoted)/float64(max(p.newHist, 1))))
			}
			p.learn.ghostHit(&e.n, p.cap.get())
		} else {
			p.hits++
			p.hit(e)
		}
	}
	if p.reqs >= int64(p.cap.get()) {
		p.adaptLR()
	}
}

func (p *Cacheus) hit(e *xentry) {
	e.it.tie = -p.learn.clock
	e.it.key = lfuKey(e.it.freq, e.it.tie)
	p.lfu.fix(&e.it)
	if e.n.queue == segR {
		p.r.moveToFront(&e.n)
		return
	}
	if e.demoted {
		e.demoted = false
		p.demoted--
		p.adaptSR(-max(1, float64(p.newHist)/float64(max(p.demoted, 1))))
	}
	p.sr.remove(&e.n)
	e.n.queue = segR
	p.r.pushFront(&e.n)
	p.balance()
}

// balance demotes R's LRU blocks to SR while R is over its share.
func (p *Cacheus) balance() {
	c := p.cap.get()
	limit := max(c-int(p.srFrac*float64(c)+0.5), 1)
	for p.r.len() > limit {
		n := p.r.back()
		p.r.remove(n)
		n.queue = segSR
		p.sr.pushFront(n)
		if e, ok := p.entries.get(n.b); ok {
			e.demoted = true
		}
		p.demoted++
	}
}

// adaptLR ends a window: see the type's doc comment.
func (p *Cacheus) adaptLR() {
	hr := float64(p.hits) / float64(p.reqs)
	dHR, dLR := hr-p.prevHR, p.learn.lr-p.prevLR
	p.prevHR, p.prevLR = hr, p.learn.lr
	p.reqs, p.hits = 0, 0
	switch {
	case dLR != 0:
		p.unlearn = 0
		step := dLR
		if dHR <= 0 {
			step = -dLR
		}
		p.learn.lr = min(max(p.learn.lr+step, cacheusMinLR), 1)
	case hr == 0 || dHR <= 0:
		p.unlearn++
		if p.unlearn >= cacheusUnlearn {
			p.unlearn = 0
			p.learn.lr = cacheusMinLR + p.learn.rng.Float64()*(1-cacheusMinLR)
		}
	}
}

// Admit inserts a new block into SR, a history entry into R.
func (p *Cacheus) Admit(b *Block, _ Time) {
	p.learn.pending = nil
	e, ok := p.entries.get(b)
	q := segSR
	switch {
	case !ok:
		e = p.entries.add(b)
		e.it.freq = 1
	case e.ghost:
		p.learn.hist.remove(&e.n)
		if e.wasNew {
			p.newHist--
		}
		e.ghost, e.wasNew = false, false
		q = segR
	default:
		return
	}
	e.n = node{b: b, queue: q}
	e.demoted = false
	e.it.b, e.it.tie = b, -p.learn.clock
	e.it.key = lfuKey(e.it.freq, e.it.tie)
	p.seg(q).pushFront(&e.n)
	p.lfu.push(&e.it)
	p.cap.observe(p.Len())
	p.balance()
}

// unlink removes a resident entry from SR-LRU and CR-LFU.
func (p *Cacheus) unlink(e *xentry) {
	p.seg(e.n.queue).remove(&e.n)
	p.lfu.remove(&e.it)
	if e.demoted {
		e.demoted = false
		p.demoted--
	}
}

// Evict removes b and records it in the history under the expert that
// chose it.
func (p *Cacheus) Evict(b *Block, _ Time) {
	e, ok := p.entries.get(b)
	if !ok || e.ghost {
		return
	}
	by := p.learn.blame(b)
	e.wasNew = e.n.queue == segSR && !e.demoted
	p.unlink(e)
	e.ghost = true
	if e.wasNew {
		p.newHist++
	}
	p.learn.remember(&e.n, by, p.cap.get(), func(old *node) {
		o, ok := p.entries.get(old.b)
		if !ok {
			return
		}
		if o.wasNew {
			p.newHist--
		}
		p.entries.remove(o)
	})
}

// Forget removes b and its history entry.
func (p *Cacheus) Forget(b *Block) {
	e, ok := p.entries.get(b)
	if !ok {
		return
	}
	p.learn.pending = nil
	if e.ghost {
		p.learn.hist.remove(&e.n)
		if e.wasNew {
			p.newHist--
		}
	} else {
		p.unlink(e)
	}
	p.entries.remove(e)
}

// Victim draws an expert by weight and returns its proposal. Until the next
// event the same victim is returned.
func (p *Cacheus) Victim(Time) (*Block, bool) {
	s := p.sr.back()
	if s == nil {
		s = p.r.back()
	}
	if s == nil {
		return nil, false
	}
	return p.learn.propose(s.b, p.lfu.min().b), true
}

// Len returns the number of resident blocks.
func (p *Cacheus) Len() int { return p.sr.len() + p.r.len() }
