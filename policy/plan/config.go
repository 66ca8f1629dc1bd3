package plan

import (
	"errors"
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// Sentinel errors.
var (
	// ErrBadConfig is returned by New and Reconfigure for an invalid Config.
	ErrBadConfig = errors.New("bad planner config")
	// ErrUnknownBlock is returned for a block ID the planner does not track.
	ErrUnknownBlock = errors.New("unknown block")
	// ErrTracked is returned by Track for a block ID already tracked.
	ErrTracked = errors.New("block already tracked")
	// ErrNotPending is returned by Done for a block without a planned move
	// in that direction.
	ErrNotPending = errors.New("no planned move for block")
	// ErrUntracked is returned by Done for a block untracked while its
	// move was pending: the move was abandoned and Done changed nothing.
	// Callers that drop blocks while moves run may ignore it.
	ErrUntracked = errors.New("block untracked while its move was pending")
	// ErrTenantInUse is returned by DropTenant for a tenant that still
	// has tracked blocks.
	ErrTenantInUse = errors.New("tenant has tracked blocks")
	// ErrPinnedPool is returned by OpenPool for pinned metadata: pinned
	// blocks are tracked one by one.
	ErrPinnedPool = errors.New("pinned blocks cannot be pooled")
	// ErrBadSource is returned by Observe for an unknown Source.
	ErrBadSource = errors.New("unknown observation source")
)

// Budget bounds the fast tier and the migrations of one epoch. A zero limit
// means no limit.
type Budget struct {
	// FastBytes is the fast-tier capacity available to tracked blocks.
	FastBytes int64
	// TenantBytes is the fast-tier quota of each tenant (Meta.Tenant).
	TenantBytes map[uint32]int64
	// DefaultTenantBytes is the quota of tenants absent from TenantBytes.
	DefaultTenantBytes int64
	// MoveBytes caps the bytes moved per epoch, promotions and demotions
	// together.
	MoveBytes int64
	// MoveBlocks caps the blocks moved per epoch.
	MoveBlocks int
	// MovePages caps the pages moved per epoch; a block of Size bytes is
	// ceil(Size/PageSize) pages.
	MovePages int
	// PageSize is the page size for MovePages; 0 means 4096.
	PageSize int64
}

// Config configures a Planner.
type Config struct {
	// Policy is the policy spec ("lru", "regret_aware:weight=12,...").
	// Every bucket of blocks (see the package doc) gets a fresh instance.
	Policy string
	// Seed seeds the policies.
	Seed int64
	// Budget bounds capacity, quotas and migrations.
	Budget Budget
	// PromoteMin is the decayed heat (sampled accesses) a slow block
	// needs to be promoted; 0 means 1.
	PromoteMin float64
	// Decay multiplies a block's heat once per epoch, in [0,1); 0 means
	// heat is this epoch's count only.
	Decay float64
	// Cooldown is the hysteresis: a block moved less than Cooldown ago
	// (in policy.Time units) is neither demoted nor re-promoted, pinned
	// blocks excepted.
	Cooldown policy.Time
	// NoPromote lists classes never promoted (one-way demotion): a block
	// of such a class stays in the slow tier unless pinned. Nil means
	// think_complete.
	NoPromote []policy.Class
	// PolicyTouches caps the policy.Access calls made for one sampled
	// count; 0 means 8.
	PolicyTouches int
	// Reuse is the evidence of reuse a slow unpinned block needs to be
	// promoted: accesses seen by one source (Observation.Source) in two
	// windows of the current epoch (two DAMON aggregation intervals, two
	// hints), or in two different epochs at most Reuse epochs apart, the
	// current one included. A block read once (a scan, a prefill not read
	// again soon) is left where it is, so moving it costs nothing that
	// reading it once could repay. 0 promotes on accesses in one epoch.
	Reuse int
	// Headroom is the share of the fast tier's capacity, in [0, 0.5],
	// that plans keep free for the next promotions by demoting cold
	// blocks (unseen for 8 epochs) with the migration budget left over
	// (see keepHeadroom).
	// 0 keeps none: every promotion into a full tier waits for a
	// demotion.
	Headroom float64
}

// Validate checks the config and returns an error naming the bad field.
func (c Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%w: %s = %v: want %s", ErrBadConfig, field, v, want)
	}
	b := c.Budget
	switch {
	case b.FastBytes < 0:
		return bad("budget.fast_bytes", b.FastBytes, ">= 0")
	case b.DefaultTenantBytes < 0:
		return bad("budget.default_tenant_bytes", b.DefaultTenantBytes, ">= 0")
	case b.MoveBytes < 0:
		return bad("budget.move_bytes", b.MoveBytes, ">= 0")
	case b.MoveBlocks < 0:
		return bad("budget.move_blocks", b.MoveBlocks, ">= 0")
	case b.MovePages < 0:
		return bad("budget.move_pages", b.MovePages, ">= 0")
	case b.PageSize < 0:
		return bad("budget.page_size", b.PageSize, ">= 0")
	case c.PromoteMin < 0:
		return bad("promote_min", c.PromoteMin, ">= 0")
	case c.Decay < 0 || c.Decay >= 1:
		return bad("decay", c.Decay, "a factor in [0,1)")
	case c.Cooldown < 0:
		return bad("cooldown", c.Cooldown, ">= 0")
	case c.PolicyTouches < 0:
		return bad("policy_touches", c.PolicyTouches, ">= 0")
	case c.Reuse < 0 || c.Reuse > maxReuse:
		return bad("reuse", c.Reuse, fmt.Sprintf("epochs in [0, %d]", maxReuse))
	case !(c.Headroom >= 0 && c.Headroom <= maxHeadroom):
		return bad("headroom", c.Headroom, fmt.Sprintf("a share of the capacity in [0, %g]", maxHeadroom))
	}
	for t, q := range b.TenantBytes {
		if q < 0 {
			return bad(fmt.Sprintf("budget.tenant_bytes[%d]", t), q, ">= 0")
		}
	}
	sp, err := policy.ParseSpec(c.Policy)
	if err != nil {
		return fmt.Errorf("%w: policy: %w", ErrBadConfig, err)
	}
	info, err := policy.Lookup(sp.Name)
	if err != nil {
		return fmt.Errorf("%w: policy: %w", ErrBadConfig, err)
	}
	if info.Offline {
		return fmt.Errorf("%w: policy %s: %w", ErrBadConfig, sp.Name, policy.ErrOffline)
	}
	// Build one instance so parameter errors surface now.
	if _, err := policy.NewFromSpec(sp, policy.Env{Seed: c.Seed}); err != nil {
		return fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return nil
}

// DefaultHeadroom is the Headroom the daemon and the simulator's tiering
// mode keep unless told otherwise: none. In the head-to-head benchmark an
// eighth of the fast tier moved 18% more pages and served fewer trace
// reads from the fast tier (0.361 against 0.433) to bring a new hot set in
// 0.2 s sooner (test/headtohead/results/ANALYSIS.md), so it is opt-in.
const DefaultHeadroom = 0

// DefaultReuse is the Reuse window the daemon and the simulator's tiering
// mode use unless told otherwise: 8 epochs.
const DefaultReuse = 8

// maxReuse bounds Config.Reuse: heat decays to nothing within 64 epochs.
const maxReuse = 64

func (c Config) promoteMin() float64 {
	if c.PromoteMin == 0 {
		return 1
	}
	return c.PromoteMin
}

func (c Config) touches() int {
	if c.PolicyTouches == 0 {
		return 8
	}
	return c.PolicyTouches
}

func (c Config) pageSize() int64 {
	if c.Budget.PageSize == 0 {
		return 4096
	}
	return c.Budget.PageSize
}

// quota returns tenant t's fast-tier quota, 0 for none.
func (c Config) quota(t uint32) int64 {
	if q, ok := c.Budget.TenantBytes[t]; ok {
		return q
	}
	return c.Budget.DefaultTenantBytes
}

// noPromote returns the set of classes never promoted as a bit mask.
func (c Config) noPromote() uint32 {
	if c.NoPromote == nil {
		return 1 << policy.ClassThinkComplete
	}
	var m uint32
	for _, cl := range c.NoPromote {
		m |= 1 << cl
	}
	return m
}
