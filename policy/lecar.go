package policy

func init() {
	Register(Info{
		Name: "lecar",
		Doc: "LeCaR (Vietri et al., HotStorage'18): regret minimisation over an LRU and an LFU expert; " +
			"a hit on a block one expert evicted shifts weight to the other",
		Params: []Param{
			{Name: "learning_rate", Default: "0.45", Doc: "λ, how far one regretted eviction moves the weights, > 0"},
			{Name: "discount", Default: "0.005", Doc: "reward of a regret one capacity's worth of requests old, in (0,1]"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			lr, d := p.Float("learning_rate"), p.Float("discount")
			p.Check(lr > 0, "learning_rate", "a number > 0")
			p.Check(d > 0 && d <= 1, "discount", "a number in (0,1]")
			return NewLeCaR(lr, d, env), nil
		},
	})
}

// LeCaR is LeCaR (Vietri et al., "Driving Cache Replacement with ML-based
// LeCaR", HotStorage'18). Two experts propose a victim: LRU (least recently
// accessed) and LFU (fewest accesses, least recent first on ties). The
// victim is drawn from LRU with probability w_LRU, else from LFU; the
// evicted block goes to the history tagged with the expert that chose it
// (when both proposed the same block, or the caller evicted a block the
// policy did not propose, no expert is blamed, but the entry still keeps
// the block's frequency). A later access
// to a history entry is a regret for that expert and moves weight to the
// other one (see regretLearner). Frequencies survive in the history, so a
// readmitted block keeps its count, as in the paper.
//
// The draw uses a generator seeded from Env.Seed, so runs are reproducible.
// The paper measures a ghost's age in requests; here a request is an Access.
//
// Access, Admit, Evict and Forget are O(log n) (the LFU heap), Victim O(1).
// State: one entry per resident block and at most c history entries, c the
// capacity in blocks (Env.CapacityBlocks or the most blocks ever resident).
type LeCaR struct {
	entries xentries
	lru     list
	lfu     keyHeap // key = lfuKey(freq, tie)
	cap     blockCap
	learn   regretLearner
}

// NewLeCaR returns an empty LeCaR policy.
func NewLeCaR(learningRate, discount float64, env Env) *LeCaR {
	return &LeCaR{
		cap:   newBlockCap(env),
		learn: newRegretLearner(learningRate, discount, env.Seed),
	}
}

// Weights returns the weights of the LRU and LFU experts (they sum to 1).
func (p *LeCaR) Weights() (lru, lfu float64) { return p.learn.w[0], p.learn.w[1] }

// Access counts an access; on a history entry it applies the regret.
func (p *LeCaR) Access(b *Block, _ Time) {
	p.learn.request()
	e, ok := p.entries.get(b)
	if !ok {
		return
	}
	e.it.freq++
	if e.ghost {
		p.learn.ghostHit(&e.n, p.cap.get())
		return
	}
	p.lru.moveToFront(&e.n)
	e.it.tie = p.learn.clock
	e.it.key = lfuKey(e.it.freq, e.it.tie)
	p.lfu.fix(&e.it)
}

// Admit inserts b, taking its frequency from its history entry if any.
func (p *LeCaR) Admit(b *Block, _ Time) {
	p.learn.pending = nil
	e, ok := p.entries.get(b)
	switch {
	case !ok:
		e = p.entries.add(b)
		e.it.freq = 1
	case e.ghost:
		p.learn.hist.remove(&e.n)
		e.ghost = false
	default:
		return
	}
	e.n = node{b: b}
	e.it.b, e.it.tie = b, p.learn.clock
	e.it.key = lfuKey(e.it.freq, e.it.tie)
	p.lru.pushFront(&e.n)
	p.lfu.push(&e.it)
	p.cap.observe(p.lru.len())
}

// Evict removes b and records it in the history under the expert that
// chose it.
func (p *LeCaR) Evict(b *Block, _ Time) {
	e, ok := p.entries.get(b)
	if !ok || e.ghost {
		return
	}
	by := p.learn.blame(b)
	p.lru.remove(&e.n)
	p.lfu.remove(&e.it)
	e.ghost = true
	p.learn.remember(&e.n, by, p.cap.get(), func(old *node) {
		if o, ok := p.entries.get(old.b); ok {
			p.entries.remove(o)
		}
	})
}

// Forget removes b and its history entry.
func (p *LeCaR) Forget(b *Block) {
	e, ok := p.entries.get(b)
	if !ok {
		return
	}
	p.learn.pending = nil
	if e.ghost {
		p.learn.hist.remove(&e.n)
	} else {
		p.lru.remove(&e.n)
		p.lfu.remove(&e.it)
	}
	p.entries.remove(e)
}

// Victim draws an expert by weight and returns its proposal. Until the next
// event the same victim is returned.
func (p *LeCaR) Victim(Time) (*Block, bool) {
	l := p.lru.back()
	if l == nil {
		return nil, false
	}
	return p.learn.propose(l.b, p.lfu.min().b), true
}

// Len returns the number of resident blocks.
func (p *LeCaR) Len() int { return p.lru.len() }

// lfuTieSpan bounds the ties lfuKey tells apart: steps within ±2^40.
const lfuTieSpan = 1 << 40

// lfuKey returns the LFU heap key of lecar and cacheus: the frequency (an
// integer count) plus a fraction growing with the tie (see tieKey), so
// that the heap's slots order blocks of one frequency without reading
// their ties. Ties are told apart exactly while the frequency is below
// 2^10.
func lfuKey(freq float64, tie int64) float64 { return tieKey(freq, tie, lfuTieSpan) }
