package plan

import (
	"fmt"
	"math"
	"sort"

	"github.com/kvtier/kvtier/policy"
)

// Buckets: every tenant keeps one policy instance per (priority, class
// rank, sharing level), so that low-priority blocks, then think_complete
// ones, then unshared ones are demoted first whatever the policy, and
// cross-tenant eviction can take the lowest reference counts first.
const (
	prioLevels  = 3
	classLevels = 3 // policy.Class.Rank: think_complete, think_active/none, output_critical
	shareLevels = 4
	nBuckets    = prioLevels * classLevels * shareLevels
)

// shareLevel maps a reference count to a sharing level: 0 unshared (<= 1),
// 1 for 2, 2 for 3-4, 3 for 5 and more.
func shareLevel(rc int32) int {
	switch {
	case rc <= 1:
		return 0
	case rc == 2:
		return 1
	case rc <= 4:
		return 2
	default:
		return 3
	}
}

// bucketOf is the bucket of a block: buckets in index order are the
// demotion order of a tenant's own blocks (priority, then class rank, then
// sharing level).
func bucketOf(m *policy.Meta) uint8 {
	return bucketIndex(min(int(m.Priority), prioLevels-1), min(max(m.Class.Rank(), 0), classLevels-1),
		shareLevel(m.RefCount))
}

// bucketIndex is the bucket of priority pr, class rank cl and sharing
// level sh.
func bucketIndex(pr, cl, sh int) uint8 {
	return uint8((pr*classLevels+cl)*shareLevels + sh)
}

// Pending moves.
const (
	pendNone int8 = iota
	pendPromote
	pendDemote
)

// entry is the planner's state of one tracked block, laid out without
// padding (72 bytes): its tenant is an index (Planner.tens), its bucket
// policy is not stored but derived (see Planner.pol), epochs are 32-bit
// like trackedAt, and a source's windows saturate at 255 (reuse needs
// two). What decides whether a sampled block is a promotion candidate and
// ranks it (pinned, class, priority: see metaOf and priority) is kept in
// meta and bucket, so that a plan does not read the blocks of its
// candidates; the size is kept in size, so that a plan demoting scattered
// victims never reads their blocks either (at 10M blocks, each is a cache
// and TLB miss). An untracked entry has no block (b nil: touched may
// still hold it).
type entry struct {
	b         *policy.Block
	ten       uint32 // its tenant: Planner.tens[ten]
	size      uint32 // b.Meta.Size, or 0 if it does not fit (see sizeOf)
	heat      float64
	lastMove  policy.Time
	last      policy.Time // last sampled access
	sight     [nSources]sight
	heatEpoch uint32 // the epoch heat was last decayed to
	trackedAt uint32 // epoch+1 in which the block was tracked
	windows   [nSources]uint8
	bucket    uint8
	pending   int8
	fast      bool // in the fast tier (as last reported)
	admitted  bool // resident in pol
	moved     bool
	meta      uint8 // metaPinned | metaHighPriority | the class, from b.Meta (see metaOf)
}

// Bits of entry.meta: metaPinned says that the block is pinned, and
// metaHighPriority that its priority is above the highest its bucket
// tells (prioLevels-1); the bits below hold its class (capped at
// metaHighPriority-1, which, like any class from 32 on, no class mask
// holds).
const (
	metaPinned       = 1 << 7
	metaHighPriority = 1 << 6
)

// metaOf is an entry's meta for m.
func metaOf(m *policy.Meta) uint8 {
	v := min(uint8(m.Class), metaHighPriority-1)
	if m.Pinned {
		v |= metaPinned
	}
	if int(m.Priority) > prioLevels-1 {
		v |= metaHighPriority
	}
	return v
}

// pinned reports whether the block is pinned (its Meta.Pinned).
func (e *entry) pinned() bool { return e.meta&metaPinned != 0 }

// class is the block's class (its Meta.Class, capped as in metaOf).
func (e *entry) class() uint8 { return e.meta &^ (metaPinned | metaHighPriority) }

// priority is the block's Meta.Priority: its bucket's, read from the
// block only when it is higher than a bucket tells.
func (e *entry) priority() policy.Priority {
	if e.meta&metaHighPriority != 0 {
		return e.b.Meta.Priority
	}
	return policy.Priority(int(e.bucket) / (classLevels * shareLevels))
}

// sizeOf is e's block size, read from the block only when entry.size
// cannot hold it.
func (e *entry) sizeOf() int64 {
	if e.size != 0 {
		return int64(e.size)
	}
	return e.b.Meta.Size
}

// size32 is the entry.size of a block of size bytes: 0 when it does not
// fit 32 bits or is not positive (sizeOf then reads the block).
func size32(size int64) uint32 {
	if size <= 0 || size > math.MaxUint32 {
		return 0
	}
	return uint32(size)
}

// pol is the bucket policy that has seen e's block: the policy of its
// tenant and bucket, which Track, Update and Reconfigure build
// (policyFor) before they set them.
func (p *Planner) pol(e *entry) policy.Policy { return p.tens[e.ten].pols[e.bucket] }

// tenOf is the tenant of e's block.
func (p *Planner) tenOf(e *entry) *tenant { return p.tens[e.ten] }

// tenant is the fast-tier accounting of one tenant.
type tenant struct {
	id       uint32
	ix       uint32 // its index in Planner.tens
	used     int64  // bytes in the fast tier, pending demotions included
	incoming int64  // bytes of pending promotions
	outgoing int64  // bytes of pending demotions
	blocks   int
	fast     int
	pols     [nBuckets]policy.Policy
	pools    [nBuckets][]*Pool // open pools by bucket, oldest first
	sel      selection         // scratch of selectBatch
	batch    []*cand           // scratch of selectBatch: its need's batch
}

// Planner decides, once per epoch, which blocks move between the fast and
// the slow tier. It is not safe for concurrent use.
type Planner struct {
	cfg        Config
	noPromote  uint32
	ents       store // the entries, by slot
	ids        index // block ID -> slot
	tenants    map[uint32]*tenant
	tens       []*tenant // the tenants by index (entry.ten), never removed
	used       int64     // fast-tier bytes, pending demotions included
	incoming   int64     // bytes of pending promotions
	outgoing   int64     // bytes of pending demotions (still in used)
	pinnedSlow map[policy.BlockID]*entry
	touched    []touch          // the entries sampled this epoch
	rank       ranking          // scratch of Plan: its candidates
	ahead      []*policy.Block  // scratch of window: victims ahead
	aheadIDs   []policy.BlockID // scratch of warm
	aheadSlots []uint32         // scratch of warm
	warmed     int64            // what warm read (so that it reads)
	spare      *Plan            // the plan Recycle handed back, for the next
	abandoned  map[policy.BlockID]abandon
	epoch      uint64
	moveCap    int64 // SetMoveCap; 0: none
	fastLimit  int64 // SetFastLimit; 0: none
	hold       Hold
}

// touch is an entry sampled this epoch, with its block's ID (which the
// entry does not keep).
type touch struct {
	e  *entry
	id policy.BlockID
}

// Hold stops the plans from moving blocks in one direction, for as long as
// the caller's target node cannot take them (it is full).
type Hold struct {
	// Promote: no promotions; demotions that bring a tier or tenant back
	// under its budget still happen.
	Promote bool
	// Demote: no demotions, neither to honour a budget nor to make room;
	// promotions go only into free fast-tier room.
	Demote bool
}

// SetHold holds moves in the directions h names, until called again.
func (p *Planner) SetHold(h Hold) { p.hold = h }

// New returns a planner with no tracked blocks.
func New(cfg Config) (*Planner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Planner{
		cfg:        cfg,
		noPromote:  cfg.noPromote(),
		tenants:    map[uint32]*tenant{},
		pinnedSlow: map[policy.BlockID]*entry{},
		abandoned:  map[policy.BlockID]abandon{},
	}, nil
}

// SetMoveCap caps the bytes the next plans move below Budget.MoveBytes,
// until it is called again (0 removes the cap). The budget is an
// operator's limit; the cap is what the caller's mover can execute in an
// epoch (the daemon measures its mover's speed against its deadline), so
// that the moves planned last are not routinely cut. A block larger than
// the cap is never planned, so callers keep the cap above their largest
// block.
func (p *Planner) SetMoveCap(bytes int64) { p.moveCap = max(bytes, 0) }

// SetFastLimit caps the fast-tier capacity below Budget.FastBytes until it
// is called again (0 removes the cap; a negative limit is taken as 1
// byte: no room at all). The budget is an operator's limit; the limit is
// what the fast node can hold now (the daemon measures the node's free
// memory), so that promotions never overfill the node and, when other
// memory fills it, the tier gives room back like an over-budget tier.
func (p *Planner) SetFastLimit(bytes int64) {
	if bytes < 0 {
		bytes = 1
	}
	p.fastLimit = bytes
}

// capacity is the fast-tier capacity in force: Budget.FastBytes, or the
// fast limit when that is lower; 0 means no limit.
func (p *Planner) capacity() int64 {
	c := p.cfg.Budget.FastBytes
	if p.fastLimit > 0 && (c == 0 || p.fastLimit < c) {
		return p.fastLimit
	}
	return c
}

// Capacity returns the fast-tier capacity in force (Budget.FastBytes or
// the lower SetFastLimit); 0 means no limit.
func (p *Planner) Capacity() int64 { return p.capacity() }

// Config returns the current configuration.
func (p *Planner) Config() Config { return p.cfg }

// Epoch returns the number of plans made so far.
func (p *Planner) Epoch() uint64 { return p.epoch }

func (p *Planner) tenant(id uint32) *tenant {
	t, ok := p.tenants[id]
	if !ok {
		t = &tenant{id: id, ix: uint32(len(p.tens))}
		p.tenants[id] = t
		p.tens = append(p.tens, t)
	}
	return t
}

// policyFor returns the bucket policy of e, building it on first use.
func (p *Planner) policyFor(t *tenant, bucket uint8) policy.Policy {
	if pol := t.pols[bucket]; pol != nil {
		return pol
	}
	env := policy.Env{CapacityBytes: p.cfg.Budget.FastBytes, Seed: p.cfg.Seed}
	if q := p.cfg.quota(t.id); q > 0 {
		env.CapacityBytes = q
	}
	// The spec was validated by New or Reconfigure, so this cannot fail.
	pol, err := policy.New(p.cfg.Policy, env)
	if err != nil {
		panic(fmt.Sprintf("plan: validated policy %q failed: %v", p.cfg.Policy, err))
	}
	t.pols[bucket] = pol
	return pol
}

// Reconfigure applies a new config (the daemon's SIGHUP). Tracked blocks,
// their tiers, heat and pending moves are kept. A new policy spec or seed
// rebuilds every bucket policy and re-admits the fast blocks oldest access
// first, so recency policies start from the order the planner saw. On an
// invalid config nothing changes and the error says why.
func (p *Planner) Reconfigure(cfg Config, now policy.Time) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	rebuild := cfg.Policy != p.cfg.Policy || cfg.Seed != p.cfg.Seed
	p.cfg = cfg
	p.noPromote = cfg.noPromote()
	if !rebuild {
		return nil
	}
	for _, t := range p.tenants {
		t.pols = [nBuckets]policy.Policy{}
		for bk, pools := range t.pools {
			if len(pools) > 0 {
				p.policyFor(t, uint8(bk)) // a bucket of pooled blocks only
			}
		}
	}
	var fast []uint32 // slots
	for slot := range p.ents.used {
		e := p.ents.at(slot)
		if e.b == nil {
			continue // a free slot
		}
		p.policyFor(p.tenOf(e), e.bucket)
		e.admitted = false
		if e.fast && !e.b.Meta.Pinned && e.pending != pendDemote {
			fast = append(fast, slot)
		}
	}
	sort.Slice(fast, func(i, j int) bool {
		a, b := p.ents.at(fast[i]), p.ents.at(fast[j])
		if a.last != b.last {
			return a.last < b.last
		}
		return a.b.ID < b.b.ID
	})
	for _, slot := range fast {
		p.admit(p.ents.at(slot), slot, now)
	}
	return nil
}

// Fast reports whether the block with id is in the fast tier (as last
// reported through Track or Done) and whether it is tracked.
func (p *Planner) Fast(id policy.BlockID) (fast, tracked bool) {
	e, ok := p.lookup(id)
	if !ok {
		return false, false
	}
	return e.fast, true
}

// Pending reports whether the block with id has a planned move awaiting
// Done.
func (p *Planner) Pending(id policy.BlockID) bool {
	e, ok := p.lookup(id)
	return ok && e.pending != pendNone
}

// lookup returns the entry of the block with id, if it is tracked.
func (p *Planner) lookup(id policy.BlockID) (*entry, bool) {
	e, _, ok := p.lookupSlot(id)
	return e, ok
}

// lookupSlot returns the entry of the block with id and its slot, if it
// is tracked.
func (p *Planner) lookupSlot(id policy.BlockID) (*entry, uint32, bool) {
	slot, ok := p.ids.get(id)
	if !ok {
		return nil, 0, false
	}
	return p.ents.at(slot), slot, true
}

// admit admits e's block, whose entry is in slot, to its policy, with the
// slot as its tag if the policy keeps one (policy.Tagged: take then finds
// a victim's entry without the ID index).
func (p *Planner) admit(e *entry, slot uint32, now policy.Time) {
	if tg, ok := p.pol(e).(policy.Tagged); ok {
		tg.AdmitTagged(e.b, now, slot)
	} else {
		p.pol(e).Admit(e.b, now)
	}
	e.admitted = true
}
