package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultKVShadow is the most blocks a kv_adaptive shadow holds by
// default: above it the shadows are set-sampled (parameter shadow).
const DefaultKVShadow = 32768

func init() {
	Register(Info{
		Name: "kv_adaptive",
		Doc: "an expert mix for KV traces by set dueling over whole-cache shadows " +
			"(LRU, prefix_chain, hit_density and ARC by default); victims follow the expert whose shadow cache had the " +
			"most recent hits; the first expert decides alone where the cache is fed without accesses",
		Params: []Param{
			{Name: "experts", Default: "lru+prefix_chain+hit_density+arc", Doc: "'+'-separated online policies " +
				"with default parameters; the first leads until another one earns the lead, and decides alone where blocks " +
				"come in without accesses"},
			{Name: "window", Default: "8", Doc: "hits count over a decaying window of window x capacity " +
				"accesses, > 0"},
			{Name: "shadow", Default: strconv.Itoa(DefaultKVShadow), Doc: "most blocks a shadow holds, 0 no limit: with a larger capacity " +
				"(in blocks) the shadows see a sample of the blocks (by ID hash) at the same ratio, and victims " +
				"come from the leader's own choice on the real cache; 0 or >= 16"},
			{Name: "margin", Default: "1", Doc: "the leader changes when another shadow leads it by more than " +
				"margin x sqrt(the leader's hits) (standard deviations of a Poisson count), >= 0"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			c := KVAdaptiveConfig{Experts: strings.Split(p.String("experts"), "+"), Window: p.Float("window"),
				Margin: p.Float("margin"), Shadow: p.Int("shadow")}
			p.Check(c.Shadow == 0 || c.Shadow >= 16, "shadow", "0 or an integer >= 16")
			p.Check(c.Window > 0 && c.Window < 1e6, "window", "a factor > 0")
			p.Check(c.Margin >= 0 && c.Margin < 1e6, "margin", "a factor >= 0")
			if err := p.Err(); err != nil {
				return nil, err
			}
			return NewKVAdaptive(c, env)
		},
	})
}

// KVAdaptiveConfig holds the parameters of kv_adaptive.
type KVAdaptiveConfig struct {
	Experts []string // registered online policies; the first runs alone when off
	Window  float64  // hit counters' window in capacities of accesses
	Margin  float64  // lead, in standard deviations, that changes the leader
	Shadow  int      // most blocks a shadow holds; 0 no limit
}

// KVAdaptive is an expert mix for KV caches. Each expert (an online
// policy) runs on a shadow cache of the real cache's capacity in blocks
// that sees the real accesses (see shadowCache); hits are counted over a
// decaying window of Window x capacity accesses. The leader changes when
// another shadow leads it by more than Margin standard deviations of its
// decayed hit count (sqrt of the count, at least guardMargin hits). The
// real cache follows the leader: its victims are the blocks the leader's
// shadow evicted that the real cache still holds, so its contents converge
// to the leader's. This is set dueling (Qureshi et al., ISCA'07) with
// whole-cache shadows, as regret_adaptive's guard does with two experts.
//
// With a capacity above Shadow blocks the shadows are set-sampled: they
// see only the blocks whose ID hash is 0 modulo ceil(capacity/Shadow), at
// that share of the capacity, so they cost a fraction of an event.
//
// The experts also run on the real cache (they see the real events): when
// the leader's shadow has no eviction to follow, or the shadows only see a
// sample of the blocks, the leader's real instance picks the victim.
// Without sampling every expert runs there, so the leader's instance has
// learned from every event when it takes over. With sampling only the
// leader's does, so that an event costs one expert on a large cache, not
// all of them: when the leader changes, a new instance of its expert
// admits the residents in the old one's eviction order (its next victim
// first), starting from the old ranking as recency; hit_density also
// takes over its shadow's learned model, ages scaled by the sampling rate
// (without it the new instance ranked by age until its ghosts came back,
// a capacity of evictions later). What else an expert learned (ARC's
// target, LFU's counts) starts afresh. Once a block is
// admitted without being accessed just before (the daemon's planner, which
// admits blocks it promoted) the shadows do not model the cache: they are
// freed, and the first expert (moved in as above if it did not lead)
// decides alone from then on.
//
// State: per expert its policy's state on its shadow (kept with the
// shadow's copies of the blocks, see shadowCopies) and a ghost list of
// its capacity in IDs; on the real
// cache every expert's state and a set of the residents without sampling,
// the leader's with it. Without sampling an event costs the experts' costs
// twice over; with it the leader's cost plus the experts' on the sampled
// accesses, O(log n) for the default experts, and a change of leader n
// victims of the old leader and n admissions.
type KVAdaptive struct {
	reals   []Policy           // experts on the real cache: each while rate is 1 and the shadows run, else reals[follows]
	real    Policy             // reals[follows]
	follows int                // the expert the real cache's victims come from when there is no shadow's to follow
	res     map[BlockID]*Block // the real cache's residents, kept while rate is 1 and the shadows run
	shadows []*shadowCache
	copies  *shadowCopies // the shadows' copies of the blocks they saw
	leader  int
	cfg     KVAdaptiveConfig
	env     Env
	cap     blockCap
	rate    uint64 // shadows see the blocks whose ID hash is 0 modulo rate
	last    *Block
	off     bool
	drains  int  // changes of leader that drained the old one (drainer)
	noDrain bool // hand the residents over by Victim, Evict and Forget only (tests)
}

// ErrBadExpert is returned for an expert kv_adaptive cannot use.
var ErrBadExpert = fmt.Errorf("%w: experts must be online, non-wrapper policies", ErrBadParam)

// NewKVAdaptive returns a mix of the named experts.
func NewKVAdaptive(c KVAdaptiveConfig, env Env) (*KVAdaptive, error) {
	p := &KVAdaptive{cfg: c, env: env, cap: newBlockCap(env), rate: 1}
	if c.Shadow > 0 && env.CapacityBlocks > c.Shadow {
		p.rate = uint64((env.CapacityBlocks + c.Shadow - 1) / c.Shadow)
	}
	if p.rate == 1 {
		p.res = map[BlockID]*Block{}
	}
	p.cfg.Experts = make([]string, len(c.Experts))
	p.copies = newShadowCopies(len(c.Experts), shadowQuiet)
	for i, name := range c.Experts {
		name = strings.TrimSpace(name)
		p.cfg.Experts[i] = name
		info, err := Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("kv_adaptive expert %d: %w", i+1, err)
		}
		if info.Offline || info.Wrapper || info.Name == "kv_adaptive" {
			return nil, fmt.Errorf("kv_adaptive expert %q: %w", name, ErrBadExpert)
		}
		sh, err := New(name, env)
		if err != nil {
			return nil, fmt.Errorf("kv_adaptive expert %q: %w", name, err)
		}
		p.shadows = append(p.shadows, newShadowCache(sh, p.rate == 1))
		var r Policy
		if i == 0 || p.rate == 1 {
			if r, err = New(name, env); err != nil {
				return nil, fmt.Errorf("kv_adaptive expert %q: %w", name, err)
			}
		}
		p.reals = append(p.reals, r)
	}
	if len(p.reals) == 0 {
		return nil, fmt.Errorf("kv_adaptive: %w: no expert", ErrBadParam)
	}
	p.real = p.reals[0]
	return p, nil
}

// Leader returns the index of the expert the real cache follows.
func (p *KVAdaptive) Leader() int { return p.leader }

// Access replays the access through the shadows, updates the leader (its
// expert takes over the real cache), then forwards the access to the
// real cache's experts.
func (p *KVAdaptive) Access(b *Block, now Time) {
	if !p.off {
		p.duel(b, now)
		p.last = b
		if p.leader != p.follows {
			p.follow(p.leader, now)
		}
	}
	for _, r := range p.reals {
		if r != nil {
			r.Access(b, now)
		}
	}
}

// duel replays an access through the shadows (if its block is sampled),
// decays their hit counts and updates the leader.
func (p *KVAdaptive) duel(b *Block, now Time) {
	c := p.cap.get()
	keep := 1 - 1/max(p.cfg.Window*float64(c), 1)
	sampled := p.rate == 1 || sketchHash(b.ID)%p.rate == 0
	var cs []Block
	if sampled {
		cs = p.copies.sync(b)
		p.copies.reap(p.shadows)
	}
	for i, s := range p.shadows {
		s.hits *= keep
		if sampled {
			s.access(&cs[i], now, max(c/int(p.rate), 1))
		}
	}
	lead := p.shadows[p.leader].hits
	margin := max(guardMargin, p.cfg.Margin*math.Sqrt(lead))
	for i, s := range p.shadows {
		if s.hits > lead+margin {
			p.leader, lead = i, s.hits
		}
	}
}

// adopter is implemented by experts whose instance on the real cache can
// take over what their shadow instance learned (hit_density's model).
type adopter interface {
	adopt(shadow Policy, scale int64)
}

// reserver is implemented by experts that can allocate the state of n
// residents at once before they are moved in.
type reserver interface {
	reserve(n int)
}

// drainer is implemented by experts that can hand their residents over in
// their eviction order, forgetting them, at less than a Victim, Evict
// and Forget each (see follow). A drained instance is left for the
// caller to discard: its other state (ghosts) is not freed.
type drainer interface {
	drain(yield func(*Block)) bool
}

// follow makes expert i's real instance give the victims. When it does not
// run, a new instance of it admits the residents in the order the current
// one would evict them, and the current one forgets them (freeing their
// slots) as they move, then stops.
func (p *KVAdaptive) follow(i int, now Time) {
	if p.reals[i] != nil {
		p.real, p.follows = p.reals[i], i
		return
	}
	next, err := New(p.cfg.Experts[i], p.env)
	if err != nil { // it was built with the same spec and Env: keep the current expert
		return
	}
	if a, ok := next.(adopter); ok && i < len(p.shadows) {
		a.adopt(p.shadows[i].pol, int64(p.rate))
	}
	if r, ok := next.(reserver); ok {
		r.reserve(p.real.Len())
	}
	if d, ok := p.real.(drainer); ok && !p.noDrain {
		if d.drain(func(v *Block) {
			next.Access(v, now)
			next.Admit(v, now)
		}) {
			p.drains++
		}
	}
	for p.real.Len() > 0 {
		v, ok := p.real.Victim(now)
		if !ok {
			break
		}
		p.real.Evict(v, now)
		p.real.Forget(v)
		next.Access(v, now)
		next.Admit(v, now)
	}
	p.reals[p.follows], p.reals[i] = nil, next
	p.real, p.follows = next, i
}

// Admit forwards to the real experts. A block admitted without its access
// just before turns the shadows off for good.
func (p *KVAdaptive) Admit(b *Block, now Time) {
	for _, r := range p.reals {
		if r != nil {
			r.Admit(b, now)
		}
	}
	if p.res != nil {
		p.res[b.ID] = b
	}
	p.cap.observe(p.real.Len())
	if !p.off && p.last != b {
		p.turnOff(now)
	}
	p.last = nil
}

// turnOff leaves the first expert alone on the real cache. The shadows'
// policies only ever held their copies of the blocks, which go with them.
// The other experts forget the blocks they hold first, so that no
// block's slot keeps the state of a discarded policy (the first expert
// would then find its own through a map, and the discarded policies would
// stay in memory). The other experts' ghosts of blocks no longer resident
// and not among the shadows' evictions are not reachable from here: their
// slots are ignored (slot.go) until those blocks are forgotten.
func (p *KVAdaptive) turnOff(now Time) {
	for _, r := range p.reals[1:] {
		for _, b := range p.res {
			if r != nil {
				r.Forget(b)
			}
		}
	}
	p.off, p.shadows, p.copies, p.leader, p.res = true, nil, nil, 0, nil
	p.follow(0, now)
	p.reals = p.reals[:1]
}

// Evict forwards to the real experts.
func (p *KVAdaptive) Evict(b *Block, now Time) {
	for _, r := range p.reals {
		if r != nil {
			r.Evict(b, now)
		}
	}
	delete(p.res, b.ID)
}

// Forget drops b from the real experts and every shadow.
func (p *KVAdaptive) Forget(b *Block) {
	for _, r := range p.reals {
		if r != nil {
			r.Forget(b)
		}
	}
	delete(p.res, b.ID)
	if cs := p.shadowCopies(b); cs != nil {
		for i, s := range p.shadows {
			s.forget(&cs[i])
		}
		p.copies.drop(b.ID)
	}
	if p.last == b {
		p.last = nil
	}
}

// Update forwards a metadata change to the experts that react to one.
func (p *KVAdaptive) Update(b *Block, old Meta, now Time) {
	for _, r := range p.reals {
		if u, ok := r.(Updater); ok {
			u.Update(b, old, now)
		}
	}
	if len(p.shadows) == 0 {
		return
	}
	cs := p.shadowCopies(b)
	if cs != nil {
		refresh(cs, b)
	}
	for i, s := range p.shadows {
		var c *Block
		if cs != nil {
			c = &cs[i]
		}
		s.update(c, b, old, now)
	}
}

// shadowCopies returns the shadows' copies of b, nil if the shadows never
// saw it (with sampling, every block outside the sample).
func (p *KVAdaptive) shadowCopies(b *Block) []Block {
	if p.copies == nil || (p.rate > 1 && sketchHash(b.ID)%p.rate != 0) {
		return nil
	}
	return p.copies.get(b.ID)
}

// Victim returns the leader shadow's most recent eviction that the real
// cache holds, else the real expert's victim.
func (p *KVAdaptive) Victim(now Time) (*Block, bool) {
	if p.res != nil {
		resident := func(id BlockID) bool { _, ok := p.res[id]; return ok }
		if id, ok := p.shadows[p.leader].victim(resident); ok {
			return p.res[id], true
		}
	}
	return p.real.Victim(now)
}

// Len returns the number of resident blocks.
func (p *KVAdaptive) Len() int { return p.real.Len() }
