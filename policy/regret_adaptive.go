package policy

func init() {
	Register(Info{
		Name: "regret_adaptive",
		Doc: "regret-adaptive: LRU that learns from evictions re-accessed within horizon; a regretted block is " +
			"protected for ttl x its observed reuse distance at its next admission, within a capped share of " +
			"the capacity; when nearly every eviction is regretted (a sweep) it keeps a stable subset resident",
		Params: regretAdaptiveParams,
		New: func(p *Params, env Env) (Policy, error) {
			c := RegretAdaptiveConfig{Horizon: p.Int("horizon"), Memory: p.Int("memory"),
				Protect: p.Float("protect"), TTL: p.Float("ttl"), Uniform: p.Float("uniform"),
				Guard: p.Float("guard")}
			p.Check(c.Horizon >= 1, "horizon", "an integer >= 1")
			p.Check(c.Memory >= 1, "memory", "an integer >= 1")
			p.Check(c.Protect >= 0 && c.Protect <= 1, "protect", "a share in [0,1]")
			p.Check(c.TTL > 0 && c.TTL < 1e6, "ttl", "a factor > 0")
			p.Check(c.Uniform > 0 && c.Uniform < 1e6, "uniform", "a share > 0")
			p.Check(c.Guard >= 0 && c.Guard < 1e6, "guard", "a factor >= 0")
			return NewRegretAdaptive(c, env), nil
		},
	})
}

// regretAdaptiveParams are regret_adaptive's parameters (regret_tiered
// has them too).
var regretAdaptiveParams = []Param{
	{Name: "horizon", Default: "24", Doc: "accesses after an eviction in which an access is a regret, >= 1"},
	{Name: "memory", Default: "1024", Doc: "accesses a regret is remembered after it happened, >= 1"},
	{Name: "protect", Default: "0.5", Doc: "largest share of the capacity (in blocks) regret may protect, " +
		"in [0,1]"},
	{Name: "ttl", Default: "1.5", Doc: "a protection lasts ttl x the block's observed reuse distance, > 0"},
	{Name: "uniform", Default: "0.9", Doc: "share of regretted evictions above which regret is uniform " +
		"(a sweep) and a stable subset is kept, in (0,1]; above 1 never"},
	{Name: "guard", Default: "8", Doc: "window, in multiples of the capacity in blocks, over which simulated " +
		"LRU and unguarded caches count hits; victims follow the one ahead; 0: no guard"},
}

// RegretAdaptiveConfig holds the parameters of regret_adaptive.
type RegretAdaptiveConfig struct {
	Horizon int     // accesses after an eviction in which an access is a regret
	Memory  int     // accesses a regret is remembered
	Protect float64 // largest share of the capacity in blocks that regret protects
	TTL     float64 // protection lasts TTL x the observed reuse distance
	Uniform float64 // regretted share of evictions that switches to sweep mode
	Guard   float64 // window of the LRU guard in capacities; 0 disables it
}

// RegretAdaptive keeps the seed study's idea, learning from evictions that
// were re-accessed soon, and fixes the three failure modes the seed
// documents. A step is one access.
//
// Mechanism. Resident blocks are either ordinary, in LRU order, or
// protected, in a min-heap by the step their protection expires. Victims
// are the least recently used ordinary block, or the protected block that
// expires first when every resident is protected. An evicted block is a
// ghost for Horizon steps; an access to a ghost is a regret: the eviction
// was wrong, and the block's reuse distance d (steps from its last access
// before the eviction to this one) is remembered for Memory steps. The
// regretted access itself is served as LRU serves it (the block becomes
// the most recent); the next time the block is admitted from outside the
// horizon, it is protected until TTL x d steps later, so it survives the
// reuse distance that cost the regret. A hit on a protected block ends its
// protection (the block becomes the most recent ordinary block); a
// protection that expires unused puts the block at the LRU end.
//
// The three failure modes of the seed:
//
//   - Over-protection under extreme pressure (regret ossifies the cache):
//     at most Protect x the capacity in blocks is protected at once (a
//     block admitted when that share is full is ordinary), every
//     protection expires after TTL x d steps, and regret memory after
//     Memory steps, so a block that was once important cannot block newer
//     hot blocks for long.
//   - Uniform regret on deterministic sweeps: the policy counts evictions
//     and regrets with exponentially decaying counters (halved every 2x
//     capacity evictions). When at least Uniform of the evictions are
//     regretted the signal ranks nothing; the policy then switches to
//     sweep mode and keeps a stable subset: every admitted block with a
//     remembered regret is protected while all but one block of the
//     capacity is, and a hit renews the protection (TTL x the distance
//     since the previous access) instead of ending it. The protected
//     subset then hits on every pass of a loop larger than the cache,
//     which is what LFU-like and size-aware policies salvage there; blocks
//     that leave the loop expire and make room, and their evictions are
//     not counted (they say nothing about the loop). The policy returns to
//     the normal mode when the share falls 0.2 below Uniform. A Uniform
//     above 1 never switches.
//   - Overhead without pressure: without regrets nothing is protected and
//     the policy is exactly LRU: same victims, in the same order.
//
// Parameters: horizon (24, the seed's default regret horizon), memory
// (1024), protect (0.5), ttl (1.5), uniform (0.9).
//
// State: one record per block (regret_table.go), holding its entry while
// resident and its ghost for Horizon steps after an eviction, and one
// regret record per block regretted in the last Memory steps (at most
// Memory of them). Access, Admit, Evict and
// Forget are O(log n) (the protected heap; O(1) for ordinary blocks, plus
// amortised O(1) expiry of ghosts, records and protections), Victim O(1).
type RegretAdaptive struct {
	cfg        RegretAdaptiveConfig
	tab        *raTable // shared with the guard and its simulations
	side       int      // this cache's half of a record: 0 real, 1 the guard's simulation
	nres       int
	ordinary   raList  // front is the most recent
	prot       minHeap // key is the expiry step; an item's last is its record's index
	items      map[uint32]*item
	spare      []*item
	ghostOrder raList // newest eviction at the front
	memo       map[BlockID]*raMemo
	memoOrder  list   // newest regret at the front; node.at is the regret step
	recent     raList // every resident block, front is the most recent
	guard      *raGuard

	cap      blockCap
	clock    int64
	tick     int64
	evicts   float64 // decayed eviction count
	regrets  float64 // decayed regret count
	sweeping bool
}

// NewRegretAdaptive returns an empty regret-adaptive policy.
func NewRegretAdaptive(c RegretAdaptiveConfig, env Env) *RegretAdaptive {
	// a full cache's steady state: its residents and, with the guard,
	// the guard's two lists of up to the capacity each
	reserve := env.CapacityBlocks
	if c.Guard > 0 {
		reserve *= 3
	}
	p := newRegretAdaptive(c, env, newRATable(min(reserve, raReserve)), 0)
	if c.Guard > 0 {
		p.guard = newRAGuard(c, env, p.tab)
	}
	return p
}

func newRegretAdaptive(c RegretAdaptiveConfig, env Env, tab *raTable, side int) *RegretAdaptive {
	return &RegretAdaptive{cfg: c, tab: tab, side: side, cap: newBlockCap(env), items: map[uint32]*item{},
		ordinary: raList{kind: raOrd + 2*side}, recent: raList{kind: raRecnt + 2*side},
		ghostOrder: raList{kind: raGhost + side}, memo: map[BlockID]*raMemo{}}
}

// raMemo is a regret record: the reuse distance the regret revealed.
type raMemo struct {
	n    node
	dist int64
}

// FollowsLRU reports whether the guard currently picks LRU's victims: a
// simulated LRU cache recently hit more often than a simulated unguarded
// one.
func (p *RegretAdaptive) FollowsLRU() bool {
	return p.guard != nil && !p.guard.off && p.guard.followLRU
}

// Sweeping reports whether the policy is in sweep mode: nearly every
// eviction was regretted recently.
func (p *RegretAdaptive) Sweeping() bool { return p.sweeping }

// Protected returns the number of protected resident blocks.
func (p *RegretAdaptive) Protected() int { return p.nprot() }

func (p *RegretAdaptive) nprot() int { return p.prot.len() }

// remember records a regret of b at reuse distance dist.
func (p *RegretAdaptive) remember(b *Block, dist int64) {
	m, ok := p.memo[b.ID]
	if ok {
		p.memoOrder.remove(&m.n)
	} else {
		m = &raMemo{n: node{b: b}}
		p.memo[b.ID] = m
	}
	m.n.at, m.dist = p.clock, dist
	p.memoOrder.pushFront(&m.n)
}

// Access advances the step. A hit on a protected block ends its
// protection, or renews it in sweep mode; an access to a ghost is a
// regret.
func (p *RegretAdaptive) Access(b *Block, now Time) {
	if p.guard != nil {
		p.guard.access(b, now, p.cap.get())
	}
	p.clock++
	p.expire()
	r := p.tab.get(b)
	sd := p.side
	switch {
	case r == nil:
		return
	case r.res[sd]:
		p.hit(r)
		return
	case !r.isGhost[sd]:
		return
	}
	p.ghostOrder.remove(p.tab, r.idx)
	r.isGhost[sd] = false
	p.remember(b, p.clock-r.last[sd])
	counted := !r.expired[sd]
	p.tab.release(r)
	if counted {
		p.regrets++
		p.updateMode()
	}
}

// hit serves an access to a resident block.
func (p *RegretAdaptive) hit(r *raRec) {
	sd := p.side
	dist := p.clock - r.last[sd]
	r.last[sd] = p.clock
	p.recent.moveToFront(p.tab, r.idx)
	switch {
	case r.prot[sd] && p.sweeping:
		p.protect(r, dist)
	case r.prot[sd]:
		p.unprotect(r)
		p.ordinary.pushFront(p.tab, r.idx)
	default:
		p.ordinary.moveToFront(p.tab, r.idx)
	}
}

// updateMode switches between the normal and the sweep mode, with a
// hysteresis band of sweepBand below Uniform.
func (p *RegretAdaptive) updateMode() {
	switch {
	case p.evicts < 8:
		p.sweeping = false
	case p.sweeping:
		p.sweeping = p.regrets >= (p.cfg.Uniform-sweepBand)*p.evicts
	default:
		p.sweeping = p.regrets >= p.cfg.Uniform*p.evicts
	}
}

// sweepBand is the hysteresis of the sweep mode: it ends when the
// regretted share falls sweepBand below Uniform.
const sweepBand = 0.2

// Admit inserts b as the most recent block, protected if it was regretted
// within Memory steps and admitted from outside the horizon (in sweep
// mode: whenever it was regretted) and the protected share has room.
func (p *RegretAdaptive) Admit(b *Block, _ Time) {
	r := p.tab.add(b)
	sd := p.side
	r.res[sd], r.prot[sd], r.expired[sd], r.last[sd] = true, false, false, p.clock
	p.nres++
	p.recent.pushFront(p.tab, r.idx)
	if p.guard != nil {
		p.guard.admit(b)
	}
	p.cap.observe(p.nres)
	if m, ok := p.memo[b.ID]; ok && (m.n.at != p.clock || p.sweeping) && p.room() {
		p.protect(r, m.dist)
		return
	}
	p.ordinary.pushFront(p.tab, r.idx)
}

// Evict removes b and keeps it as a ghost for Horizon steps.
func (p *RegretAdaptive) Evict(b *Block, _ Time) {
	r := p.tab.get(b)
	sd := p.side
	if r == nil || !r.res[sd] {
		return
	}
	p.drop(r)
	if r.isGhost[sd] {
		p.ghostOrder.remove(p.tab, r.idx)
	}
	r.isGhost[sd], r.ghostAt[sd] = true, p.clock
	p.ghostOrder.pushFront(p.tab, r.idx)
	if r.expired[sd] {
		// the block left a loop or outlived its regret: its eviction
		// says nothing about whether regret is uniform
		return
	}
	p.evicts++
	if lim := float64(2 * max(p.cap.get(), 16)); p.evicts > lim {
		p.evicts /= 2
		p.regrets /= 2
	}
	p.updateMode()
}

// drop ends r's residency in this cache (the record stays).
func (p *RegretAdaptive) drop(r *raRec) {
	if r.prot[p.side] {
		p.unprotect(r)
	} else {
		p.ordinary.remove(p.tab, r.idx)
	}
	p.recent.remove(p.tab, r.idx)
	r.res[p.side] = false
	p.nres--
}

// Forget drops b, its ghost and its regret record.
func (p *RegretAdaptive) Forget(b *Block) {
	if p.guard != nil {
		p.guard.forget(b)
	}
	if m, ok := p.memo[b.ID]; ok {
		p.memoOrder.remove(&m.n)
		delete(p.memo, b.ID)
	}
	r := p.tab.get(b)
	if r == nil {
		return
	}
	sd := p.side
	if r.res[sd] {
		p.drop(r)
	}
	if r.isGhost[sd] {
		p.ghostOrder.remove(p.tab, r.idx)
		r.isGhost[sd] = false
	}
	p.tab.release(r)
}

// Victim returns the least recently used ordinary block, or the protected
// block whose protection expires first when all are protected; while the
// guard follows LRU, the least recently used block.
func (p *RegretAdaptive) Victim(Time) (*Block, bool) {
	if p.guard != nil {
		if b, ok := p.guard.victim(); ok {
			return b, true
		}
	}
	if p.FollowsLRU() && p.recent.tail != 0 {
		return p.tab.block(p.recent.tail), true
	}
	if p.ordinary.tail != 0 {
		return p.tab.block(p.ordinary.tail), true
	}
	if it := p.prot.min(); it != nil {
		return it.b, true
	}
	return nil, false
}

// Len returns the number of resident blocks.
func (p *RegretAdaptive) Len() int { return p.nres }
