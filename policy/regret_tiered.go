package policy

// maxTieredWindow bounds regret_tiered's reuse and memory: its density
// model keeps 11 arrays of max(reuse, memory) float64s per instance (5.8 MB
// at the bound, one instance per tier and per shadow).
const maxTieredWindow = 1 << 16

func init() {
	params := append([]Param{}, regretAdaptiveParams...)
	params = append(params, Param{Name: "reuse", Default: "32",
		Doc: "a block read again within this many accesses of its previous read is hot (for memory accesses), in [1, 65536]"},
		Param{Name: "rank", Default: "density", Doc: "the ranking that duels LRU: density (the hit density " +
			"of the block's class at its age, learnt from every reuse distance heard) or class (the least " +
			"recently read cold block first)"},
		Param{Name: "span", Default: "1", Doc: "density: the hits counted are those within span x the " +
			"capacity in blocks accesses, > 0"})
	Register(Info{
		Name: "regret_tiered",
		Doc: "regret_adaptive's successor for a policy per tier: also ranks blocks by the hit density of their " +
			"reuse class (hot: re-read within reuse accesses) at their age, learnt from every access (also " +
			"below the fast tier), and follows LRU, regret_adaptive or that ranking, whichever simulated cache " +
			"of its capacity hit most",
		Params: params,
		New: func(p *Params, env Env) (Policy, error) {
			c := RegretTieredConfig{Reuse: p.Int("reuse"), Density: p.String("rank") == "density",
				Span: p.Float("span"), RegretAdaptiveConfig: RegretAdaptiveConfig{
					Horizon: p.Int("horizon"), Memory: p.Int("memory"), Protect: p.Float("protect"),
					TTL: p.Float("ttl"), Uniform: p.Float("uniform"), Guard: p.Float("guard")}}
			p.Check(c.Horizon >= 1, "horizon", "an integer >= 1")
			// The density model keeps arrays of max(reuse, memory) entries:
			// bounded so that a parameter cannot ask for gigabytes.
			p.Check(c.Memory >= 1 && c.Memory <= maxTieredWindow, "memory", "an integer in [1, 65536]")
			p.Check(c.Protect >= 0 && c.Protect <= 1, "protect", "a share in [0,1]")
			p.Check(c.TTL > 0 && c.TTL < 1e6, "ttl", "a factor > 0")
			p.Check(c.Uniform > 0 && c.Uniform < 1e6, "uniform", "a share > 0")
			p.Check(c.Guard > 0 && c.Guard < 1e6, "guard", "a factor > 0")
			p.Check(c.Reuse >= 1 && c.Reuse <= maxTieredWindow, "reuse", "an integer in [1, 65536]")
			p.Check(c.Density || p.String("rank") == "class", "rank", "density or class")
			p.Check(c.Span > 0 && c.Span < 1e6, "span", "a factor > 0")
			return NewRegretTiered(c, env), nil
		},
	})
}

// AllAccesses is implemented by a policy that wants to hear every access,
// also to blocks it does not hold, when a caller runs one instance per
// tier (policy/sim/lab runs kvtier:SPEC so): an instance below the fast
// tier then learns from the reads other tiers serve, as the seed study's
// policies do. Policy.Access already allows non-resident blocks; callers
// that run one instance for the fast tier send every access anyway.
type AllAccesses interface {
	HearsAllAccesses() bool
}

// RegretTieredConfig holds the parameters of regret_tiered.
type RegretTieredConfig struct {
	RegretAdaptiveConfig
	Reuse int // a block read again within Reuse accesses is hot for Memory accesses
	// Density ranks by hit density (regret_tiered_density.go) instead of
	// by class and recency; Span is its horizon in capacities.
	Density bool
	Span    float64
}

// RegretTiered is regret_adaptive with a second ranking, by reuse class,
// and a duel that picks among LRU, regret_adaptive and that ranking. The
// ranking (Density, the default) evicts the block of lowest hit density:
// that of its class at its age, from the distribution of reuse distances
// of every read heard (regret_tiered_density.go); or (rank=class) the
// least recently read cold block first. It is
// meant for a policy instance per tier, as the lab model runs kvtier's
// policies, where regret_adaptive below the fast tier hears only the
// reads of its own blocks and is LRU there.
//
// Class. A block read again within Reuse accesses of its previous read is
// hot until Memory accesses after that read; any other block is cold. The
// class ranking evicts the least recently read cold block first, then the
// least recently read hot one (a hot block whose class lapsed counts as
// cold). The policy keeps a block's last read and its last short reuse
// for every block it heard, resident or not, until Forget or, for a block
// none of its caches holds, until max(Reuse, Memory) accesses after its
// last read, when neither can make the block hot any more (the density
// model counts such a block as not read again within that window): below the fast
// tier it hears every access (AllAccesses), so the class is global, as
// the seed study's frequency is.
//
// Duel. Two simulated caches of the policy's capacity in blocks, holding
// no data, replay the real cache's traffic: an LRU cache and a
// class-ranked one. A read of a block they hold is a hit; a block the
// real cache admits, or holds when it is read, enters them (evicting by
// their ranking); a block that leaves the real cache right after its read
// (a lower tier promoting it) leaves them. Hits only one had are counted
// with exponentially decaying counters over Guard x the capacity reads, as
// regret_adaptive's guard counts LRU's and its own. The real cache follows
// the class ranking while its lead over LRU exceeds guardMargin plus
// guardZ standard deviations of a tie and, in a fast tier run alone (not
// Env.PerTier), regret_adaptive's own lead over LRU; otherwise it takes
// the victims of an inner regret_adaptive (guarded, so LRU's while LRU
// leads). Run per tier the fast tier does not weigh regret_adaptive's
// lead: its class ranking demotes the cold blocks the tiers below evict
// first, which its own hits do not show (results/regret/LAB.md measures
// both). Below the fast tier
// the inner policy hears only its blocks' reads, as regret_adaptive does
// there, and its guard is off.
//
// State: one record per block heard, kept while a cache holds the block
// or its reads could still matter (max(Reuse, Memory) accesses after its
// last read; an older record says what no record says: cold), the inner
// regret_adaptive's, and the two simulations (up to the capacity each).
// Every event is O(1) amortised plus the inner policy's O(log n); the
// records share the inner policy's table (regret_tiered_table.go).
type RegretTiered struct {
	cfg   RegretTieredConfig
	inner *RegretAdaptive
	tab   *rtTable
	real  rtClassList // resident blocks
	simL  rtList      // the simulated LRU cache, front most recent
	simC  rtClassList // the simulated class-ranked cache
	loose rtList      // records in none of the three, newest read at the front
	cap   blockCap
	dens  *rtDensity // nil: the class ranking
	clock int64
	nres  int

	lruHits, clsHits float64
	followCls        bool
	perTier          bool // Env.PerTier

	// lastRead is the block of the last access; pending is it until the
	// next admission. lower is set for good when a block is admitted
	// without its access just before: the cache is fed by demotions.
	lastRead, pending *Block
	lower             bool
}

// NewRegretTiered returns an empty regret_tiered policy.
func NewRegretTiered(c RegretTieredConfig, env Env) *RegretTiered {
	inner := NewRegretAdaptive(c.RegretAdaptiveConfig, env)
	p := &RegretTiered{cfg: c, inner: inner, tab: newRTTable(inner.tab), real: newRTClassList(rtReal),
		simL: rtList{kind: rtSimL}, simC: newRTClassList(rtSimC), loose: rtList{kind: rtLoose},
		cap: newBlockCap(env), perTier: env.PerTier}
	if c.Density {
		p.dens = newRTDensity(int(p.window()))
	}
	return p
}

// HearsAllAccesses reports true: see AllAccesses.
func (p *RegretTiered) HearsAllAccesses() bool { return true }

// FollowsClass reports whether victims currently follow the class ranking.
func (p *RegretTiered) FollowsClass() bool { return p.followCls }

// rec returns b's record, creating a fresh (loose) one.
func (p *RegretTiered) rec(b *Block) *rtRec {
	r := p.tab.add(b)
	if !r.loose && !r.inReal && !r.inL && !r.inC {
		p.loose.pushFront(p.tab, r.idx)
		r.loose = true
	}
	return r
}

// settle puts r in the loose list when no cache holds it, or releases it
// at once when it expired already (see expire). r is not to be used after.
func (p *RegretTiered) settle(r *rtRec) {
	switch {
	case r.inReal || r.inL || r.inC:
	case p.clock-r.last > p.window():
		p.observeExpiry(r)
		p.tab.release(r)
	default:
		p.loose.pushFront(p.tab, r.idx)
		r.loose = true
	}
}

// window is the accesses after its last read for which the record of a
// block no cache holds is kept: max(Reuse, Memory).
func (p *RegretTiered) window() int64 { return int64(max(p.cfg.Reuse, p.cfg.Memory)) }

// unsettle takes r out of the loose list before a cache takes it.
func (p *RegretTiered) unsettle(r *rtRec) {
	if r.loose {
		p.loose.remove(p.tab, r.idx)
		r.loose = false
	}
}

// expire drops loose records whose last read is more than max(Reuse,
// Memory) accesses old: such a record is cold for good and no read can
// find a short reuse in it, as if there were none. The loose list is by
// the step a record became loose or was read, so its tail expires first
// to within that window.
func (p *RegretTiered) expire() {
	w := p.window()
	for p.loose.tail != 0 {
		r := p.tab.rec(p.loose.tail)
		if p.clock-r.last <= w {
			return
		}
		p.loose.remove(p.tab, r.idx)
		r.loose = false
		p.observeExpiry(r)
		p.tab.release(r)
	}
}

// hot reports whether r is hot now.
func (p *RegretTiered) hot(r *rtRec) bool {
	return r.hotAt >= 0 && p.clock-r.hotAt <= int64(p.cfg.Memory)
}

// Access counts the simulations' hits, updates b's class and forwards the
// read to the inner policy when b is resident or this is the fast tier.
func (p *RegretTiered) Access(b *Block, now Time) {
	p.clock++
	if p.dens != nil {
		p.dens.tick(p.clock)
	}
	p.expire()
	r := p.rec(b)
	p.duel(r)
	p.observeRead(r)
	if r.last >= 0 && p.clock-r.last <= int64(p.cfg.Reuse) {
		r.hotAt = p.clock
	}
	r.last = p.clock
	p.observedRead(r)
	p.lastRead, p.pending = b, b
	if r.inReal {
		p.real.touch(p.tab, r.idx, &r.inReal, &r.hotReal, p.hot(r))
	}
	p.simTouch(r)
	if r.loose {
		p.loose.moveToFront(p.tab, r.idx)
	}
	if r.inReal || !p.lower {
		p.inner.Access(b, now)
	}
}

// Admit inserts b into the real cache and the simulations.
func (p *RegretTiered) Admit(b *Block, now Time) {
	if p.pending != b && !p.lower {
		// A lower tier starts in the density ranking: see decide.
		p.lower = true
		p.followCls = p.dens != nil
	}
	p.pending = nil
	r := p.rec(b)
	p.unsettle(r)
	p.real.touch(p.tab, r.idx, &r.inReal, &r.hotReal, p.hot(r))
	p.nres++
	p.cap.observe(p.nres)
	p.simInsert(r)
	p.inner.Admit(b, now)
}

// Evict removes b from the real cache; a block leaving right after its
// read (promoted out of a lower tier) leaves the simulations too.
func (p *RegretTiered) Evict(b *Block, now Time) {
	r := p.tab.get(b)
	if r == nil || !r.inReal {
		return
	}
	p.real.drop(p.tab, r.idx, &r.inReal, r.hotReal)
	p.nres--
	if b == p.lastRead {
		p.simDrop(r)
	}
	p.settle(r)
	p.inner.Evict(b, now)
}

// Forget drops every trace of b.
func (p *RegretTiered) Forget(b *Block) {
	if r := p.tab.get(b); r != nil {
		if r.inReal {
			p.real.drop(p.tab, r.idx, &r.inReal, r.hotReal)
			p.nres--
		}
		p.simDrop(r)
		p.unsettle(r)
		p.observeForget(r)
		p.tab.unhold(r) // the inner policy's Forget releases the record
	}
	if p.lastRead == b {
		p.lastRead = nil
	}
	if p.pending == b {
		p.pending = nil
	}
	p.inner.Forget(b)
}

// Victim returns the ranking's victim (density or class) while it leads the duel, else
// the inner regret_adaptive's.
func (p *RegretTiered) Victim(now Time) (*Block, bool) {
	if p.followCls {
		if r := p.rankVictim(&p.real); r != nil {
			return p.tab.block(r.idx), true
		}
	}
	return p.inner.Victim(now)
}

// Len returns the number of resident blocks.
func (p *RegretTiered) Len() int { return p.nres }
