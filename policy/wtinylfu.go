package policy

func init() {
	Register(Info{
		Name: "wtinylfu",
		Doc: "W-TinyLFU (Einziger et al.): a small LRU window in front of a segmented LRU main cache; a block " +
			"leaving the window replaces main's victim only if a count-min sketch says it is more frequent",
		Params: []Param{
			{Name: "window", Default: "0.01", Doc: "share of the capacity (in blocks) for the window LRU, in (0,1)"},
			{Name: "protected", Default: "0.8", Doc: "share of the main cache for the protected segment, in (0,1)"},
			{Name: "sample", Default: "10", Doc: "sketch ageing period in multiples of the capacity, >= 1"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			w, pr, s := p.Float("window"), p.Float("protected"), p.Int("sample")
			p.Check(w > 0 && w < 1, "window", "a share in (0,1)")
			p.Check(pr > 0 && pr < 1, "protected", "a share in (0,1)")
			p.Check(s >= 1, "sample", "an integer >= 1")
			return NewWTinyLFU(w, pr, s, env), nil
		},
	})
}

// Segments of W-TinyLFU, stored in node.queue.
const (
	wtWindow uint8 = iota
	wtProbation
	wtProtected
)

// WTinyLFU is W-TinyLFU (Einziger, Friedman & Manes, "TinyLFU: A Highly
// Efficient Cache Admission Policy", ACM ToS 2017), as in Caffeine. New
// blocks enter a window LRU (1% of the capacity). The main cache is a
// segmented LRU: probation (20%) and protected (80%); a probation hit moves
// a block to protected, whose overflow is demoted back to probation. When
// room is needed and the window is at its share, the window's LRU block
// (the candidate) duels main's victim (probation's LRU block): the one with
// the lower frequency estimate in the sketch is evicted, the candidate
// losing ties; a winning candidate moves to probation. The sketch counts
// every access, resident or not (see cmSketch).
//
// Access, Admit, Evict and Forget are O(1) (sketch ageing amortised);
// Victim is O(1) once the cache is full (while it fills, each block moves
// from the window to main once). State: one node per resident block plus
// the sketch, 4w counters and 8w doorkeeper bits for w the capacity in
// blocks rounded up to a power of two; nothing per evicted block.
type WTinyLFU struct {
	nodes                        nodeTable
	window, probation, protected list
	sketch                       cmSketch
	cap                          blockCap
	windowShare, protectedShare  float64
	sample                       int
}

// NewWTinyLFU returns an empty W-TinyLFU policy.
func NewWTinyLFU(window, protected float64, sample int, env Env) *WTinyLFU {
	c := newBlockCap(env)
	return &WTinyLFU{
		sketch:         newCMSketch(c.get(), sample),
		cap:            c,
		windowShare:    window,
		protectedShare: protected,
		sample:         sample,
	}
}

func (p *WTinyLFU) seg(q uint8) *list {
	switch q {
	case wtWindow:
		return &p.window
	case wtProbation:
		return &p.probation
	}
	return &p.protected
}

func (p *WTinyLFU) move(n *node, q uint8) {
	p.seg(n.queue).remove(n)
	n.queue = q
	p.seg(q).pushFront(n)
}

// Access counts the access in the sketch and reorders a resident block.
func (p *WTinyLFU) Access(b *Block, _ Time) {
	p.sketch.increment(b.ID)
	n, ok := p.nodes.get(b)
	if !ok {
		return
	}
	switch n.queue {
	case wtWindow:
		p.window.moveToFront(n)
	case wtProtected:
		p.protected.moveToFront(n)
	case wtProbation:
		p.move(n, wtProtected)
		limit := max(int(p.protectedShare*float64(p.mainCap())), 1)
		for p.protected.len() > limit {
			p.move(p.protected.back(), wtProbation)
		}
	}
}

// windowCap and mainCap split the capacity in blocks.
func (p *WTinyLFU) windowCap() int { return p.cap.share(p.windowShare) }
func (p *WTinyLFU) mainCap() int   { return max(p.cap.get()-p.windowCap(), 1) }

// Admit inserts b at the front of the window.
func (p *WTinyLFU) Admit(b *Block, _ Time) {
	if _, ok := p.nodes.get(b); ok {
		return
	}
	n := p.nodes.add(b)
	n.queue = wtWindow
	p.window.pushFront(n)
	p.cap.observe(p.nodes.len())
	if c := p.cap.get(); !p.sketch.fits(c) {
		p.sketch = newCMSketch(2*c, p.sample)
	}
}

// Evict removes b.
func (p *WTinyLFU) Evict(b *Block, _ Time) { p.Forget(b) }

// Forget removes b; the sketch forgets it by ageing.
func (p *WTinyLFU) Forget(b *Block) {
	if n, ok := p.nodes.get(b); ok {
		p.seg(n.queue).remove(n)
		p.nodes.remove(n)
	}
}

// mainVictim returns main's LRU block, from probation first.
func (p *WTinyLFU) mainVictim() *node {
	if n := p.probation.back(); n != nil {
		return n
	}
	return p.protected.back()
}

// Victim runs the admission duel between the window's LRU block and main's
// victim, moving window blocks into main while main has room.
func (p *WTinyLFU) Victim(Time) (*Block, bool) {
	for {
		v := p.mainVictim()
		cand := p.window.back()
		if cand == nil {
			if v == nil {
				return nil, false
			}
			return v.b, true
		}
		if p.window.len() < p.windowCap() && v != nil {
			return v.b, true
		}
		if p.probation.len()+p.protected.len() < p.mainCap() || v == nil {
			if v == nil && p.window.len() <= 1 {
				return cand.b, true
			}
			p.move(cand, wtProbation)
			continue
		}
		if p.sketch.estimate(cand.b.ID) > p.sketch.estimate(v.b.ID) {
			p.move(cand, wtProbation)
			return v.b, true
		}
		return cand.b, true
	}
}

// Len returns the number of resident blocks.
func (p *WTinyLFU) Len() int { return p.nodes.len() }
