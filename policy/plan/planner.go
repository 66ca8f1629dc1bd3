package plan

import (
	"fmt"
	"math"
	"sort"

	"github.com/kvtier/kvtier/policy"
)

// Buckets: every tenant keeps one policy instance per (priority,
// sharing level), so that low-priority and unshared blocks are demoted
// first whatever the policy, and cross-tenant eviction can take the
// lowest reference counts first.
const (
	prioLevels  = 3
	shareLevels = 4
	nBuckets    = prioLevels * shareLevels
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

func bucketOf(m *policy.Meta) uint8 {
	pr := int(m.Priority)
	if pr >= prioLevels {
		pr = prioLevels - 1
	}
	return uint8(pr*shareLevels + shareLevel(m.RefCount))
}

// Pending moves.
const (
	pendNone int8 = iota
	pendPromote
	pendDemote
)

// entry is the planner's state of one tracked block.
type entry struct {
	b         *policy.Block
	ten       *tenant
	pol       policy.Policy // the bucket policy that has seen the block
	bucket    uint8
	fast      bool // in the fast tier (as last reported)
	admitted  bool // resident in pol
	pending   int8
	heat      float64
	heatEpoch uint64
	seenEpoch uint64 // epoch+1 in which the block joined touched
	lastMove  policy.Time
	moved     bool
	last      policy.Time // last sampled access
}

// tenant is the fast-tier accounting of one tenant.
type tenant struct {
	id       uint32
	used     int64 // bytes in the fast tier, pending demotions included
	incoming int64 // bytes of pending promotions
	outgoing int64 // bytes of pending demotions
	blocks   int
	fast     int
	pols     [nBuckets]policy.Policy
}

// Planner decides, once per epoch, which blocks move between the fast and
// the slow tier. It is not safe for concurrent use.
type Planner struct {
	cfg        Config
	noPromote  uint32
	blocks     map[policy.BlockID]*entry
	tenants    map[uint32]*tenant
	used       int64 // fast-tier bytes, pending demotions included
	incoming   int64 // bytes of pending promotions
	outgoing   int64 // bytes of pending demotions (still in used)
	pinnedSlow map[policy.BlockID]*entry
	touched    []*entry
	epoch      uint64
}

// New returns a planner with no tracked blocks.
func New(cfg Config) (*Planner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Planner{
		cfg:        cfg,
		noPromote:  cfg.noPromote(),
		blocks:     map[policy.BlockID]*entry{},
		tenants:    map[uint32]*tenant{},
		pinnedSlow: map[policy.BlockID]*entry{},
	}, nil
}

// Config returns the current configuration.
func (p *Planner) Config() Config { return p.cfg }

// Epoch returns the number of plans made so far.
func (p *Planner) Epoch() uint64 { return p.epoch }

func (p *Planner) tenant(id uint32) *tenant {
	t, ok := p.tenants[id]
	if !ok {
		t = &tenant{id: id}
		p.tenants[id] = t
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

// Track starts tracking b, which is in the fast tier if fast. The caller
// keeps b stable until Untrack and changes its Meta only through Update.
// A fast unpinned block is admitted to the policy; a slow pinned block is
// promoted by the next Plan.
func (p *Planner) Track(b *policy.Block, fast bool, now policy.Time) error {
	if _, ok := p.blocks[b.ID]; ok {
		return fmt.Errorf("tracking block %d: %w", b.ID, ErrTracked)
	}
	t := p.tenant(b.Meta.Tenant)
	e := &entry{b: b, ten: t, bucket: bucketOf(&b.Meta), fast: fast, last: now}
	e.pol = p.policyFor(t, e.bucket)
	p.blocks[b.ID] = e
	t.blocks++
	if fast {
		p.addFast(e)
		if !b.Meta.Pinned {
			e.pol.Admit(b, now)
			e.admitted = true
		}
	} else if b.Meta.Pinned {
		p.pinnedSlow[b.ID] = e
	}
	return nil
}

func (p *Planner) addFast(e *entry) {
	p.used += e.b.Meta.Size
	e.ten.used += e.b.Meta.Size
	e.ten.fast++
}

func (p *Planner) dropFast(e *entry) {
	p.used -= e.b.Meta.Size
	e.ten.used -= e.b.Meta.Size
	e.ten.fast--
}

// Untrack forgets the block with id (it was freed or its region is gone).
// A pending move of the block is abandoned.
func (p *Planner) Untrack(id policy.BlockID) error {
	e, ok := p.blocks[id]
	if !ok {
		return fmt.Errorf("untracking block %d: %w", id, ErrUnknownBlock)
	}
	if e.fast {
		p.dropFast(e)
	}
	p.unpend(e)
	e.pol.Forget(e.b)
	e.ten.blocks--
	delete(p.pinnedSlow, id)
	delete(p.blocks, id)
	return nil
}

// pendAccount adds (sign +1) or removes (-1) e's pending move from the
// pending byte counts.
func (p *Planner) pendAccount(e *entry, sign int64) {
	size := sign * e.b.Meta.Size
	switch e.pending {
	case pendPromote:
		p.incoming += size
		e.ten.incoming += size
	case pendDemote:
		p.outgoing += size
		e.ten.outgoing += size
	}
}

// unpend clears e's pending move.
func (p *Planner) unpend(e *entry) {
	p.pendAccount(e, -1)
	e.pending = pendNone
}

// Update replaces the metadata of a tracked block (class, priority,
// reference count, pinned, tenant, size). A change of tenant, priority or
// sharing level moves the block to another bucket policy, which forgets
// its history.
func (p *Planner) Update(id policy.BlockID, m policy.Meta, now policy.Time) error {
	e, ok := p.blocks[id]
	if !ok {
		return fmt.Errorf("updating block %d: %w", id, ErrUnknownBlock)
	}
	nb := bucketOf(&m)
	moveBucket := nb != e.bucket || m.Tenant != e.b.Meta.Tenant
	if e.fast {
		p.dropFast(e)
	}
	p.pendAccount(e, -1)
	if moveBucket || (m.Pinned && !e.b.Meta.Pinned) {
		e.pol.Forget(e.b)
		e.admitted = false
	}
	if m.Tenant != e.b.Meta.Tenant {
		e.ten.blocks--
		e.ten = p.tenant(m.Tenant)
		e.ten.blocks++
	}
	e.b.Meta = m
	e.bucket = nb
	e.pol = p.policyFor(e.ten, nb)
	if e.fast {
		p.addFast(e)
	}
	p.pendAccount(e, +1)
	if e.fast && !m.Pinned && !e.admitted && e.pending != pendDemote {
		e.pol.Admit(e.b, now)
		e.admitted = true
	}
	if m.Pinned && !e.fast && e.pending == pendNone {
		p.pinnedSlow[id] = e
	} else {
		delete(p.pinnedSlow, id)
	}
	return nil
}

// Access records count sampled accesses to the block with id at now. The
// block's policy sees min(count, PolicyTouches) accesses; the heat that
// ranks promotions counts them all.
func (p *Planner) Access(id policy.BlockID, count uint32, now policy.Time) error {
	e, ok := p.blocks[id]
	if !ok {
		return fmt.Errorf("access to block %d: %w", id, ErrUnknownBlock)
	}
	if count == 0 {
		return nil
	}
	p.heatNow(e)
	e.heat += float64(count)
	e.last = now
	if e.seenEpoch != p.epoch+1 {
		e.seenEpoch = p.epoch + 1
		p.touched = append(p.touched, e)
	}
	if e.b.Meta.Pinned {
		return nil
	}
	n := min(int(count), p.cfg.touches())
	for range n {
		e.pol.Access(e.b, now)
	}
	return nil
}

// heatNow applies the decay of the epochs since e's heat was last updated.
func (p *Planner) heatNow(e *entry) {
	if gap := p.epoch - e.heatEpoch; gap > 0 {
		if p.cfg.Decay == 0 || gap > 64 {
			e.heat = 0
		} else {
			e.heat *= math.Pow(p.cfg.Decay, float64(gap))
		}
		e.heatEpoch = p.epoch
	}
}

// Done reports the outcome of a planned move of the block with id:
// promoted says which direction the caller executed, ok whether the block
// actually moved. Only now does the policy learn of a promotion (Admit); a
// demotion that failed puts the block back among the policy's residents.
func (p *Planner) Done(id policy.BlockID, promoted, ok bool, now policy.Time) error {
	e, found := p.blocks[id]
	if !found {
		return fmt.Errorf("completing move of block %d: %w", id, ErrUnknownBlock)
	}
	want := pendDemote
	if promoted {
		want = pendPromote
	}
	if e.pending != want {
		dir := "demotion"
		if promoted {
			dir = "promotion"
		}
		return fmt.Errorf("completing %s of block %d: %w", dir, id, ErrNotPending)
	}
	p.unpend(e)
	if promoted {
		if ok {
			e.fast = true
			p.addFast(e)
			p.moved(e, now)
			delete(p.pinnedSlow, id)
			if !e.b.Meta.Pinned {
				e.pol.Admit(e.b, now)
				e.admitted = true
			}
		} else if e.b.Meta.Pinned {
			p.pinnedSlow[id] = e
		}
		return nil
	}
	if ok {
		e.fast = false
		p.dropFast(e)
		p.moved(e, now)
		if e.b.Meta.Pinned {
			p.pinnedSlow[id] = e
		}
		return nil
	}
	if !e.b.Meta.Pinned {
		e.pol.Admit(e.b, now)
		e.admitted = true
	}
	return nil
}

func (p *Planner) moved(e *entry, now policy.Time) {
	e.lastMove = now
	e.moved = true
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
	}
	var fast []*entry
	for _, e := range p.blocks {
		e.pol = p.policyFor(e.ten, e.bucket)
		e.admitted = false
		if e.fast && !e.b.Meta.Pinned && e.pending != pendDemote {
			fast = append(fast, e)
		}
	}
	sort.Slice(fast, func(i, j int) bool {
		if fast[i].last != fast[j].last {
			return fast[i].last < fast[j].last
		}
		return fast[i].b.ID < fast[j].b.ID
	})
	for _, e := range fast {
		e.pol.Admit(e.b, now)
		e.admitted = true
	}
	return nil
}

// Fast reports whether the block with id is in the fast tier (as last
// reported through Track or Done) and whether it is tracked.
func (p *Planner) Fast(id policy.BlockID) (fast, tracked bool) {
	e, ok := p.blocks[id]
	if !ok {
		return false, false
	}
	return e.fast, true
}

// Pending reports whether the block with id has a planned move awaiting
// Done.
func (p *Planner) Pending(id policy.BlockID) bool {
	e, ok := p.blocks[id]
	return ok && e.pending != pendNone
}
