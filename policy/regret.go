package policy

func init() {
	Register(Info{
		Name: "regret_aware",
		Doc: "regret-aware (seed study): evict the lowest freq_weight*frequency + recency_weight*recency + " +
			"weight*regret, where regret grows when a block read before its eviction is accessed soon after it",
		Params: []Param{
			{Name: "weight", Default: "6", Doc: "weight of regret in the score, >= 0"},
			{Name: "horizon", Default: "24", Doc: "steps after an eviction in which an access adds regret, >= 1"},
			{Name: "decay", Default: "0.98", Doc: "factor applied to a block's regret at each of its accesses, in (0,1]"},
			{Name: "freq_weight", Default: "1.5", Doc: "weight of the access count in the score, >= 0"},
			{Name: "recency_weight", Default: "1", Doc: "weight of recency in the score, >= 0"},
			{Name: "window", Default: "0", Doc: "steps over which recency grows by 1, >= 0; 0 uses the capacity " +
				"in blocks"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			c := RegretConfig{
				Weight: p.Float("weight"), Horizon: p.Int("horizon"), Decay: p.Float("decay"),
				FreqWeight: p.Float("freq_weight"), RecencyWeight: p.Float("recency_weight"),
				Window: p.Int("window"),
			}
			p.Check(c.Weight >= 0, "weight", "a weight >= 0")
			p.Check(c.Horizon >= 1, "horizon", "an integer >= 1")
			p.Check(c.Decay > 0 && c.Decay <= 1, "decay", "a factor in (0,1]")
			p.Check(c.FreqWeight >= 0, "freq_weight", "a weight >= 0")
			p.Check(c.RecencyWeight >= 0, "recency_weight", "a weight >= 0")
			p.Check(c.Window >= 0, "window", "an integer >= 0")
			return NewRegret(c, env), nil
		},
	})
}

// RegretConfig holds the parameters of regret_aware.
type RegretConfig struct {
	Weight        float64 // weight of regret
	Horizon       int     // steps after an eviction in which an access adds regret
	Decay         float64 // factor applied to regret at each access of the block
	FreqWeight    float64 // weight of the access count
	RecencyWeight float64 // weight of recency
	Window        int     // steps over which recency grows by 1; 0: capacity in blocks
}

// Regret is the seed study's regret-aware policy. A step is one access (the
// seed's logical step; a trace step of the simulator when every step
// accesses one block). When a block is evicted the step is recorded; an
// access gap steps later, gap <= Horizon, adds (Horizon-gap+1)/Horizon to
// the block's regret, after its existing regret is multiplied by Decay, as
// at every access of the block. The victim has the lowest
//
//	FreqWeight*frequency + RecencyWeight*recency + Weight*regret
//
// where frequency counts the block's accesses.
//
// Deviation from the seed, to keep every event O(log n): the seed
// normalises recency over all resident blocks at victim time,
// (last-oldest)/(newest-oldest), which is O(n) and changes every block's
// score whenever time passes. Here recency is last/Window, with Window the
// capacity in blocks (or the window parameter): under steady eviction
// pressure the resident blocks' last accesses span about that many steps,
// so the two agree on the ordering of the recent blocks, and a block's key
// changes only at its own events. Where they differ, the seed's recency is
// bounded by 1, so a block with higher frequency or regret is kept forever
// once nothing touches it (the ossification of its failure mode 2), while
// here it falls behind newer blocks by RecencyWeight every Window steps and
// ages out. When the capacity in blocks is unknown (Env.CapacityBlocks 0, no
// window), the high-water mark of resident blocks is used and every key is
// recomputed in O(n) when it grows by a quarter: amortised O(1) per
// admission, and it stops once the tier is full.
//
// Second deviation, for bounded state: the seed keeps frequency and regret
// of every page ever seen. Here an evicted block's frequency, regret and
// eviction step are kept for Horizon steps (the regret memory) and then
// dropped, so a block that returns later starts afresh. State: one item per
// resident block plus one ghost per block evicted in the last Horizon steps.
//
// Regret needs a read before the eviction. A block evicted without a
// single access, before or since its admission, was placed in the fast
// tier (a region the daemon registered there), not kept there by the
// policy: its ghost counts the accesses that follow but adds no regret,
// since its first access is a first reference. The ghost still carries
// them into the block's admission, so a block read while slow, promoted
// and evicted before it is read again (the daemon promotes at the end of
// an epoch, after the reads) gains regret when it returns. A cache (the
// simulator) admits only on a miss, so there every evicted block has been
// accessed and this changes nothing; in the daemon, without it, every
// registered block demoted untouched gained regret at its first read
// within Horizon, as much as a block read, evicted and read again.
type Regret struct {
	cfg    RegretConfig
	k      keyed // residents; key is the score, tie the event order
	ghosts entryTable[regretGhost, *regretGhost]
	order  list // ghosts, newest eviction at the front; node.at is the step
	cap    blockCap
	scale  float64   // steps over which recency grows by 1
	auto   bool      // scale follows the high-water mark
	clock  int64     // logical step: accesses so far
	miss   missCount // of the last block accessed while neither resident nor a ghost
}

type regretGhost struct {
	n      node
	freq   float64
	regret float64
	owner  any
	read   bool // the block was accessed before its eviction
}

func (g *regretGhost) slotBlock() *Block { return g.n.b }
func (g *regretGhost) slotOwner() any    { return g.owner }
func (g *regretGhost) setSlot(b *Block, owner any) {
	g.n.b, g.owner = b, owner
}

// NewRegret returns an empty regret-aware policy.
func NewRegret(c RegretConfig, env Env) *Regret {
	p := &Regret{cfg: c, cap: newBlockCap(env)}
	switch {
	case c.Window > 0:
		p.scale = float64(c.Window)
	case env.CapacityBlocks > 0:
		p.scale = float64(env.CapacityBlocks)
	default:
		p.scale, p.auto = 1, true
	}
	return p
}

func (p *Regret) rekey(it *item) {
	it.key = p.cfg.FreqWeight*it.freq + p.cfg.Weight*it.regret +
		p.cfg.RecencyWeight*float64(it.last)/p.scale
}

// expire drops the ghosts evicted more than Horizon steps ago.
func (p *Regret) expire() {
	for n := p.order.back(); n != nil && p.clock-n.at > int64(p.cfg.Horizon); n = p.order.back() {
		p.order.remove(n)
		if g, ok := p.ghosts.get(n.b); ok {
			p.ghosts.remove(g)
		}
	}
}

// Access advances the logical step, counts the access and decays the
// block's regret; an access to a block evicted within Horizon steps adds
// regret.
func (p *Regret) Access(b *Block, _ Time) {
	p.clock++
	p.expire()
	if it, ok := p.k.get(b); ok {
		it.freq++
		it.regret *= p.cfg.Decay
		it.last = p.clock
		it.tie = p.k.tick()
		p.rekey(it)
		p.k.fix(it)
		return
	}
	if g, ok := p.ghosts.get(b); ok {
		gap := p.clock - g.n.at
		g.freq++
		if g.read {
			g.regret = g.regret*p.cfg.Decay + float64(int64(p.cfg.Horizon)-gap+1)/float64(p.cfg.Horizon)
		}
		return
	}
	p.miss.miss(b.ID)
}

// Admit inserts b with the frequency and regret it had as a ghost, or with
// the accesses that missed.
func (p *Regret) Admit(b *Block, _ Time) {
	var freq, regret float64
	if g, ok := p.ghosts.get(b); ok {
		freq, regret = g.freq, g.regret
		p.order.remove(&g.n)
		p.ghosts.remove(g)
	} else {
		freq = float64(p.miss.take(b.ID))
	}
	it := p.k.add(b)
	it.last, it.tie, it.freq, it.regret = p.clock, p.k.tick(), freq, regret
	p.rekey(it)
	p.k.push(it)
	p.cap.observe(p.k.len())
	if p.auto && float64(p.cap.get()) > 1.25*p.scale {
		p.rescale(float64(p.cap.get()))
	}
}

// rescale changes the recency window and recomputes every key in O(n).
func (p *Regret) rescale(scale float64) {
	p.scale = scale
	p.k.h.each(p.rekey)
	p.k.h.reheap()
}

// Evict removes b and remembers its frequency, regret and eviction step
// for Horizon steps, and whether it was ever accessed.
func (p *Regret) Evict(b *Block, _ Time) {
	it, ok := p.k.remove(b)
	if !ok {
		return
	}
	g := p.ghosts.add(b)
	g.n.at, g.freq, g.regret, g.read = p.clock, it.freq, it.regret, it.freq > 0
	p.order.pushFront(&g.n)
}

// Forget drops b and its ghost.
func (p *Regret) Forget(b *Block) {
	p.k.remove(b)
	if g, ok := p.ghosts.get(b); ok {
		p.order.remove(&g.n)
		p.ghosts.remove(g)
	}
	p.miss.forget(b.ID)
}

// Victim returns the resident block with the lowest score.
func (p *Regret) Victim(Time) (*Block, bool) { return p.k.victim() }

// Len returns the number of resident blocks.
func (p *Regret) Len() int { return p.k.len() }
