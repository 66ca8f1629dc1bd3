package policy

func init() {
	params := append([]Param{}, regretAdaptiveParams...)
	params = append(params, Param{Name: "reuse", Default: "32",
		Doc: "a block read again within this many accesses of its previous read is hot (for memory accesses), >= 1"})
	Register(Info{
		Name: "regret_tiered",
		Doc: "regret_adaptive's successor for a policy per tier: also ranks blocks by reuse class (hot: re-read " +
			"within reuse accesses), learns from every access when run below the fast tier, and follows LRU, " +
			"regret_adaptive or the class ranking, whichever simulated cache of its capacity hit most",
		Params: params,
		New: func(p *Params, env Env) (Policy, error) {
			c := RegretTieredConfig{Reuse: p.Int("reuse"), RegretAdaptiveConfig: RegretAdaptiveConfig{
				Horizon: p.Int("horizon"), Memory: p.Int("memory"), Protect: p.Float("protect"),
				TTL: p.Float("ttl"), Uniform: p.Float("uniform"), Guard: p.Float("guard")}}
			p.Check(c.Horizon >= 1, "horizon", "an integer >= 1")
			p.Check(c.Memory >= 1, "memory", "an integer >= 1")
			p.Check(c.Protect >= 0 && c.Protect <= 1, "protect", "a share in [0,1]")
			p.Check(c.TTL > 0 && c.TTL < 1e6, "ttl", "a factor > 0")
			p.Check(c.Uniform > 0 && c.Uniform < 1e6, "uniform", "a share > 0")
			p.Check(c.Guard > 0 && c.Guard < 1e6, "guard", "a factor > 0")
			p.Check(c.Reuse >= 1, "reuse", "an integer >= 1")
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
}

// RegretTiered is regret_adaptive with a second ranking, by reuse class,
// and a duel that picks among LRU, regret_adaptive and that ranking. It is
// meant for a policy instance per tier, as the lab model runs kvtier's
// policies, where regret_adaptive below the fast tier hears only the
// reads of its own blocks and is LRU there.
//
// Class. A block read again within Reuse accesses of its previous read is
// hot until Memory accesses after that read; any other block is cold. The
// class ranking evicts the least recently read cold block first, then the
// least recently read hot one (a hot block whose class lapsed counts as
// cold). The policy keeps a block's last read and its last short reuse
// for every block it heard, resident or not, until Forget: below the fast
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
// State: one record per block heard until Forget, the inner
// regret_adaptive's, and the two simulations (up to the capacity each).
// Every event is O(1) amortised plus the inner policy's O(log n).
type RegretTiered struct {
	cfg   RegretTieredConfig
	inner *RegretAdaptive
	recs  map[BlockID]*rtRec
	real  rtClassList // resident blocks
	simL  list        // the simulated LRU cache, front most recent
	simC  rtClassList // the simulated class-ranked cache
	cap   blockCap
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

// rtRec is what regret_tiered knows of a block: a node in each of its
// three caches (real, simulated LRU, simulated class) and its reads.
type rtRec struct {
	real, simL, simC node
	inReal, inL, inC bool
	hotReal, hotC    bool  // the class list real and simC hold the block in
	last, hotAt      int64 // step of the last read and of the last short reuse (-1: none)
}

// NewRegretTiered returns an empty regret_tiered policy.
func NewRegretTiered(c RegretTieredConfig, env Env) *RegretTiered {
	return &RegretTiered{cfg: c, inner: NewRegretAdaptive(c.RegretAdaptiveConfig, env),
		recs: map[BlockID]*rtRec{}, cap: newBlockCap(env), perTier: env.PerTier}
}

// HearsAllAccesses reports true: see AllAccesses.
func (p *RegretTiered) HearsAllAccesses() bool { return true }

// FollowsClass reports whether victims currently follow the class ranking.
func (p *RegretTiered) FollowsClass() bool { return p.followCls }

func (p *RegretTiered) rec(b *Block) *rtRec {
	r, ok := p.recs[b.ID]
	if !ok {
		r = &rtRec{last: -1, hotAt: -1}
		r.real.b, r.simL.b, r.simC.b = b, b, b
		p.recs[b.ID] = r
	}
	return r
}

// hot reports whether r is hot now.
func (p *RegretTiered) hot(r *rtRec) bool {
	return r.hotAt >= 0 && p.clock-r.hotAt <= int64(p.cfg.Memory)
}

// Access counts the simulations' hits, updates b's class and forwards the
// read to the inner policy when b is resident or this is the fast tier.
func (p *RegretTiered) Access(b *Block, now Time) {
	p.clock++
	r := p.rec(b)
	p.duel(r)
	if r.last >= 0 && p.clock-r.last <= int64(p.cfg.Reuse) {
		r.hotAt = p.clock
	}
	r.last = p.clock
	p.lastRead, p.pending = b, b
	if r.inReal {
		p.real.touch(&r.real, &r.inReal, &r.hotReal, p.hot(r))
	}
	p.simTouch(r)
	if r.inReal || !p.lower {
		p.inner.Access(b, now)
	}
}

// Admit inserts b into the real cache and the simulations.
func (p *RegretTiered) Admit(b *Block, now Time) {
	if p.pending != b {
		p.lower = true
	}
	p.pending = nil
	r := p.rec(b)
	p.real.touch(&r.real, &r.inReal, &r.hotReal, p.hot(r))
	p.nres++
	p.cap.observe(p.nres)
	p.simInsert(r)
	p.inner.Admit(b, now)
}

// Evict removes b from the real cache; a block leaving right after its
// read (promoted out of a lower tier) leaves the simulations too.
func (p *RegretTiered) Evict(b *Block, now Time) {
	r, ok := p.recs[b.ID]
	if !ok || !r.inReal {
		return
	}
	p.real.drop(&r.real, &r.inReal, r.hotReal)
	p.nres--
	if b == p.lastRead {
		p.simDrop(r)
	}
	p.inner.Evict(b, now)
}

// Forget drops every trace of b.
func (p *RegretTiered) Forget(b *Block) {
	if r, ok := p.recs[b.ID]; ok {
		if r.inReal {
			p.real.drop(&r.real, &r.inReal, r.hotReal)
			p.nres--
		}
		p.simDrop(r)
		delete(p.recs, b.ID)
	}
	if p.lastRead == b {
		p.lastRead = nil
	}
	if p.pending == b {
		p.pending = nil
	}
	p.inner.Forget(b)
}

// Victim returns the class ranking's victim while it leads the duel, else
// the inner regret_adaptive's.
func (p *RegretTiered) Victim(now Time) (*Block, bool) {
	if p.followCls {
		if n := p.real.victim(p, p.recs); n != nil {
			return n.b, true
		}
	}
	return p.inner.Victim(now)
}

// Len returns the number of resident blocks.
func (p *RegretTiered) Len() int { return p.nres }
