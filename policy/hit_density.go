package policy

import (
	"math/bits"
	"math/rand/v2"
	"strings"
)

func init() {
	Register(Info{
		Name: "hit_density",
		Doc: "learned hit density for KV blocks (LHD, Beckmann et al., NSDI'18): per class of block (reads so far, " +
			"frontier of its sequence, shared prefix before it) it learns from hits, evictions and a sample of " +
			"evicted blocks followed as ghosts the expected hits per unit of space-time at each age, and evicts the " +
			"lowest hit density among sampled resident blocks",
		Params: []Param{
			{Name: "samples", Default: "32", Doc: "resident blocks sampled per victim (in runs of 4 adjacent slots), >= 1"},
			{Name: "decay", Default: "0.9", Doc: "factor the learned counts keep at every refresh, in (0,1]"},
			{Name: "period", Default: "0.5", Doc: "refresh every period x capacity accesses (at least 1024), > 0"},
			{Name: "prior", Default: "64", Doc: "pseudo-events by which a sparse class borrows the pooled " +
				"age distribution, >= 0"},
			{Name: "horizon", Default: "1", Doc: "evicted blocks are followed (as ghosts) for about horizon x " +
				"capacity evictions to learn reuse beyond the cache, >= 1; a sample of 1/horizon of them is kept"},
			{Name: "features", Default: "reads+frontier+prefix", Doc: "what classes blocks: '+'-separated " +
				"reads, frontier, gap, prefix, or none"},
		},
		New: func(p *Params, env Env) (Policy, error) {
			c := HitDensityConfig{Samples: p.Int("samples"), Decay: p.Float("decay"),
				Period: p.Float("period"), Prior: p.Float("prior"), Horizon: p.Int("horizon")}
			f, ok := parseFeatures(p.String("features"))
			p.Check(ok, "features", "'+'-separated reads, frontier, gap, prefix, or none")
			c.Features = f
			p.Check(c.Horizon >= 1 && c.Horizon <= 1<<20, "horizon", "an integer in [1,2^20]")
			p.Check(c.Samples >= 1 && c.Samples <= 4096, "samples", "an integer in [1,4096]")
			p.Check(c.Decay > 0 && c.Decay <= 1, "decay", "a factor in (0,1]")
			p.Check(c.Period > 0 && c.Period < 1e6, "period", "a factor > 0")
			p.Check(c.Prior >= 0 && c.Prior < 1e12, "prior", "a count >= 0")
			return NewHitDensity(c, env), nil
		},
	})
}

// HitDensityConfig holds the parameters of hit_density.
type HitDensityConfig struct {
	Samples int     // resident blocks sampled per victim
	Decay   float64 // share of the learned counts kept at each refresh
	Period  float64 // refresh period in capacities of accesses
	Prior   float64 // pseudo-events of the pooled distribution per class
	Horizon int     // capacities of evictions a ghost is followed for
	// Features is the set of Feature* bits that class blocks.
	Features int
}

// minPeriod is the fewest accesses between two refreshes of the model.
const minPeriod = 1024

// hdSlot is what Victim reads of a resident block, kept in the array it
// samples so that a sample costs one memory access, and the victim's
// block and record come with it: 24 bytes.
type hdSlot struct {
	b   *Block
	lc  uint64 // hdLC: what Victim rates
	pos int32  // Meta.Pos at the last access, the tie-break
	rec uint32 // the block's record
}

// hdLC packs what Victim rates of a resident: the step of its last access
// (or of its admission) << 8 | its class when the current lifetime began.
func hdLC(last int64, class uint8) uint64 { return uint64(last)<<8 | uint64(class) }

// lcLast is the step of the last access packed in lc (see hdLC).
func lcLast(lc uint64) int64 { return int64(lc >> 8) }

// lcClass is the class packed in lc (see hdLC).
func lcClass(lc uint64) uint8 { return uint8(lc) }

// HitDensity ranks resident blocks by learned hit density (see
// densityModel). A step is one access. A block's class is fixed when its
// current lifetime begins (admission or hit) from what is known online,
// by the features chosen (Features):
//
//   - reads: max(Meta.RefCount, accesses seen while resident), in buckets
//     1, 2-3, 4-7, 8+ (in a prefix cache, how many requests read it);
//   - frontier: the last, unshared block of its sequence (a decode append
//     or a prompt's partial last block), rarely read again;
//   - prefix: how many shared blocks (RefCount > 1) its run read before it
//     (a run is accesses of one sequence at consecutive positions), in
//     buckets 0, 1, 2-3, 4+: a new block after a long shared prefix is a
//     branch of a popular prompt, a new block after none starts a
//     conversation;
//   - gap (off by default): the age at its last hit relative to the
//     capacity (none, below 1/4, below 1, below 4, beyond 4 capacities).
//
// LHD only sees a lifetime end at its eviction, so it cannot learn that a
// block evicted at age a would have been hit at a' > a. Here a sample of
// 1/Horizon of the evicted blocks (by ID hash) is followed as ghosts, at
// most the capacity of them: a ghost's return is recorded as a hit at its
// full age, its expiry (or its block's Forget) as an end, each with
// weight Horizon; hits of resident blocks weigh 1.
//
// Victim samples Samples resident blocks and returns the one of least hit
// density; ties (as before the first refresh) go to the oldest, then to
// the highest Pos, so a chain leaves tail first. The samples are runs of
// hdRun adjacent slots of the resident array from uniformly drawn starts
// (a seeded generator, so runs are reproducible): at a million residents
// a run costs one cache and TLB miss, as a single draw does. Slots are in
// admission order but for evictions (the last slot fills the hole), so a
// run tends to hold blocks admitted together; on the Mooncake trace 8
// runs of 4 rank as well as 32 single draws (hit ratios within 0.001 at
// 1%, 5%, 10% and 20% of the distinct blocks). Without Seq, Pos or
// RefCount (the daemon's sampled planner) the classes reduce to reads, and
// the policy is LHD over its own access counts.
//
// State: one record per resident block or ghost, found through the
// block's slot (hitdensity_entry.go), one slot in an array per resident,
// at most capacity ghosts in a ring by eviction, the histograms (classes
// x age buckets). Records and ring hold no pointers: a slot holds its
// block, and one array the block of each record. Access, Admit, Evict and
// Forget are O(1) and allocate nothing in the steady state; Victim is
// O(samples) and draws and prefetches the first runs of the next Victims
// ahead (hdDraws); a refresh every max(period x capacity, 1024) accesses
// costs classes x age buckets.
type HitDensity struct {
	cfg    HitDensityConfig
	tab    hdTable
	res    []hdSlot
	victim int32 // the slot of the last Victim's block
	touch  int64 // sink of sample's early loads
	model  densityModel
	pcg    *rand.PCG // rng's source: ahead saves its state before drawing ahead, undraw restores it; only sample and drawNext may draw from rng
	rng    *rand.Rand
	ahead  hdAheadQ // the first runs of the next Victims, drawn ahead
	cap    blockCap
	clock  int64
	events int64  // accesses since the last refresh
	rounds int64  // refreshes so far
	ghosts hdRing // ghosts, by eviction

	runSeq  uint64 // the current run: accesses of one sequence at consecutive positions
	runNext int32  // Pos that continues the run
	shared  int32  // shared blocks read so far in the run
	prefix  int32  // shared blocks before the last accessed block in its run
	lastID  BlockID
}

// Buckets of the features of hit_density; the classes are the product of
// the chosen features' buckets (at most 4 x 2 x 5 x 4 = 160).
const (
	kvReadBuckets   = 4
	kvGapBuckets    = 5
	kvPrefixBuckets = 4
)

// Features of a block hit_density may classify by.
const (
	FeatureReads    = 1 << iota // reads so far (RefCount or own count)
	FeatureFrontier             // last unshared block of its sequence
	FeatureGap                  // age at the last hit
	FeaturePrefix               // shared blocks before it in its run
)

var featureNames = map[string]int{"reads": FeatureReads, "frontier": FeatureFrontier, "gap": FeatureGap,
	"prefix": FeaturePrefix}

// parseFeatures parses a '+'-separated list of feature names.
func parseFeatures(s string) (int, bool) {
	f := 0
	for _, name := range strings.Split(s, "+") {
		v, ok := featureNames[strings.TrimSpace(name)]
		if !ok {
			return 0, s == "none"
		}
		f |= v
	}
	return f, true
}

// NewHitDensity returns an empty hit_density policy.
func NewHitDensity(c HitDensityConfig, env Env) *HitDensity {
	pcg := rand.NewPCG(uint64(env.Seed), 0x6b76616470)
	return &HitDensity{cfg: c, cap: newBlockCap(env),
		model: newDensityModel(featureClasses(c.Features), c.Decay, c.Prior),
		pcg:   pcg, rng: rand.New(pcg)}
}

// classify returns the class of block b, of record e, whose lifetime
// begins now. reads and prefix saturate at hdSat, where their buckets
// (log2, up to 8 and 4) no longer change.
func (p *HitDensity) classify(b *Block, e *hdRec) uint8 {
	m := &b.Meta
	f := p.cfg.Features
	c := 0
	if f&FeatureReads != 0 {
		reads := max(m.RefCount, int32(e.reads), 1)
		c = min(bits.Len32(uint32(reads))-1, kvReadBuckets-1)
	}
	if f&FeatureFrontier != 0 {
		c *= 2
		if frontier(m) {
			c++
		}
	}
	if f&FeatureGap != 0 {
		c = c*kvGapBuckets + p.gapBucket(e.t)
	}
	if f&FeaturePrefix != 0 {
		c = c*kvPrefixBuckets + min(bits.Len32(uint32(e.prefix)), kvPrefixBuckets-1)
	}
	return uint8(c)
}

// featureClasses returns the number of classes the features f make.
func featureClasses(f int) int {
	n := 1
	for _, d := range []struct{ bit, n int }{{FeatureReads, kvReadBuckets}, {FeatureFrontier, 2},
		{FeatureGap, kvGapBuckets}, {FeaturePrefix, kvPrefixBuckets}} {
		if f&d.bit != 0 {
			n *= d.n
		}
	}
	return n
}

// gapBucket places the age at a block's last hit relative to the capacity:
// none, below 1/4, below 1, below 4, beyond 4 capacities.
func (p *HitDensity) gapBucket(gap int64) int {
	c := int64(p.cap.get())
	switch {
	case gap <= 0:
		return 0
	case 4*gap < c:
		return 1
	case gap < c:
		return 2
	case gap < 4*c:
		return 3
	default:
		return 4
	}
}

// Access advances the step; a hit on a resident block is recorded at its
// age in its class and begins a new lifetime, a ghost's return as a hit at
// its full age.
func (p *HitDensity) Access(b *Block, _ Time) {
	p.clock++
	p.follow(b)
	if e := p.tab.get(b); e != nil && e.state == hdResident {
		e.prefix = uint16(min(p.prefix, hdSat))
		lc := &p.res[e.at].lc
		age := p.clock - lcLast(*lc)
		p.model.hit(int(lcClass(*lc)), age, 1)
		e.t = max(age, 1)
		if e.reads < hdSat {
			e.reads++
		}
		*lc = hdLC(p.clock, p.classify(b, e))
		p.res[e.at].pos = b.Meta.Pos
	} else if e != nil {
		p.model.hit(int(e.class), p.clock-e.t, float64(p.cfg.Horizon))
		p.unghost(e)
		p.tab.remove(b, e)
	}
	p.events++
	if p.events >= max(int64(p.cfg.Period*float64(p.cap.get())), minPeriod) {
		p.model.refresh()
		p.events = 0
		p.rounds++
	}
}

// follow advances the current run with b and sets prefix to the number of
// shared blocks (RefCount > 1) read before b in it.
func (p *HitDensity) follow(b *Block) {
	m := &b.Meta
	if m.Seq != p.runSeq || m.Pos != p.runNext || m.SeqLen == 0 {
		p.runSeq, p.shared = m.Seq, 0
	}
	p.runNext, p.prefix, p.lastID = m.Pos+1, p.shared, b.ID
	if m.RefCount > 1 {
		p.shared++
	}
}

// Admit starts tracking b at age 0; a ghost of b is dropped.
func (p *HitDensity) Admit(b *Block, _ Time) {
	e := p.tab.get(b)
	if e != nil {
		p.unghost(e)
		e.t, e.prefix, e.state = 0, 0, hdResident
	} else {
		e = p.tab.add(b)
	}
	e.reads = 1
	if b.ID == p.lastID {
		e.prefix = uint16(min(p.prefix, hdSat))
	}
	e.at = uint32(len(p.res))
	p.res = append(p.res, hdSlot{b: b, lc: hdLC(p.clock, p.classify(b, e)), pos: b.Meta.Pos, rec: e.self})
	p.cap.observe(len(p.res))
}

// Evict drops b. The outcome of its lifetime is not known yet: a sample of
// 1/Horizon of the evicted blocks (by ID) is followed as ghosts, whose
// return or expiry is recorded with weight Horizon.
func (p *HitDensity) Evict(b *Block, _ Time) {
	idx, ok := p.residentOf(b)
	if !ok {
		return
	}
	sl := p.unslot(idx)
	if p.cfg.Horizon > 1 && sketchHash(b.ID)%uint64(p.cfg.Horizon) != 0 {
		p.tab.remove(b, p.tab.rec(sl.rec))
		return
	}
	p.pushGhost(sl.rec, lcLast(sl.lc), lcClass(sl.lc))
	if p.ghosts.len() > p.cap.get() {
		pos, i := p.ghosts.oldest()
		old := p.tab.rec(i)
		p.model.end(int(old.class), p.clock-old.t, float64(p.cfg.Horizon))
		*p.ghosts.at(uint32(pos)) = 0
		p.ghosts.live--
		p.tab.drop(old)
	}
}

// Forget drops b: a resident block or ghost freed by its owner ends its
// lifetime without a hit.
func (p *HitDensity) Forget(b *Block) {
	e := p.tab.get(b)
	switch {
	case e == nil:
		p.tab.clearStale(b)
	case e.state == hdResident:
		sl := p.unslot(e.at)
		p.model.end(int(lcClass(sl.lc)), p.clock-lcLast(sl.lc), 1)
		p.tab.remove(b, e)
	default:
		p.model.end(int(e.class), p.clock-e.t, float64(p.cfg.Horizon))
		p.unghost(e)
		p.tab.remove(b, e)
	}
}

// residentOf returns the slot of b when b is resident: when b is the last
// victim, found through its slot in res without reading b or its record
// (cache misses at a million residents).
func (p *HitDensity) residentOf(b *Block) (uint32, bool) {
	if int(p.victim) < len(p.res) && p.res[p.victim].b == b {
		return uint32(p.victim), true
	}
	if e := p.tab.get(b); e != nil && e.state == hdResident {
		return e.at, true
	}
	return 0, false
}

// unslot removes slot idx from res (the last slot takes its place) and
// returns it.
func (p *HitDensity) unslot(idx uint32) hdSlot {
	sl := p.res[idx]
	last := p.res[len(p.res)-1]
	p.res[idx] = last
	p.tab.rec(last.rec).at = idx
	p.res = p.res[:len(p.res)-1]
	return sl
}

// Len returns the number of resident blocks.
func (p *HitDensity) Len() int { return len(p.res) }
