package api

import "time"

// Version is the API version prefix of every path.
const Version = "v1"

// DefaultSocket is where the daemon listens unless configured otherwise.
const DefaultSocket = "/run/kvtier/kvtier.sock"

// Classes of KV blocks, as accepted in requests.
const (
	ClassNone           = "none"
	ClassThinkActive    = "think_active"
	ClassThinkComplete  = "think_complete"
	ClassOutputCritical = "output_critical"
)

// Priorities of regions, as accepted in requests.
const (
	PriorityLow    = "low"
	PriorityNormal = "normal"
	PriorityHigh   = "high"
)

// Range is a byte range within a region: Offset from the region's start and
// Length, both multiples of the region's block size.
type Range struct {
	Offset uint64 `json:"offset"`
	Length uint64 `json:"length"`
}

// RegisterRequest registers a KV buffer of a process as a region.
type RegisterRequest struct {
	// PID is the process whose memory the region is; 0 (omitted) is the
	// calling process.
	PID       int     `json:"pid"`
	Addr      uint64  `json:"addr"`               // start address, page aligned
	Length    uint64  `json:"length"`             // bytes, a multiple of BlockSize
	BlockSize uint64  `json:"block_size"`         // bytes per KV block, a multiple of the page size up to 1GiB; 0 is 2MiB
	Tenant    string  `json:"tenant,omitempty"`   // at most 64 bytes of printable UTF-8
	Class     string  `json:"class,omitempty"`    // default "none"
	Priority  string  `json:"priority,omitempty"` // default "normal"
	RefCount  int32   `json:"refcount,omitempty"` // default 1
	Pinned    []Range `json:"pinned,omitempty"`
	Name      string  `json:"name,omitempty"` // free-form label, at most 64 bytes of printable UTF-8
}

// UpdateRequest changes a region. Absent fields are left unchanged.
type UpdateRequest struct {
	Class    *string `json:"class,omitempty"`
	Priority *string `json:"priority,omitempty"`
	RefCount *int32  `json:"refcount,omitempty"`
	// Pinned replaces the pinned ranges when present (an empty list unpins
	// everything).
	Pinned *[]Range `json:"pinned,omitempty"`
	// ThinkComplete marks ranges think_complete (one-way: a block never
	// returns to think_active).
	ThinkComplete []Range `json:"think_complete,omitempty"`
}

// HintsRequest reports accesses an engine made itself, by block index
// within the region.
type HintsRequest struct {
	Blocks []uint64 `json:"blocks"`
	Write  bool     `json:"write,omitempty"`
}

// HintsResponse says how many hinted blocks were accepted.
type HintsResponse struct {
	Accepted int `json:"accepted"`
}

// Region is a registered region as the daemon tracks it.
type Region struct {
	ID         uint64    `json:"id"`
	PID        int       `json:"pid"`
	Addr       uint64    `json:"addr"`
	Length     uint64    `json:"length"`
	BlockSize  uint64    `json:"block_size"`
	Blocks     int       `json:"blocks"`
	Tenant     string    `json:"tenant"`
	Class      string    `json:"class"`
	Priority   string    `json:"priority"`
	RefCount   int32     `json:"refcount"`
	Pinned     []Range   `json:"pinned"`
	Name       string    `json:"name,omitempty"`
	Source     string    `json:"source"` // "api" or "rule:NAME"
	Registered time.Time `json:"registered"`
	FastBytes  uint64    `json:"fast_bytes"` // as last planned or measured
	SlowBytes  uint64    `json:"slow_bytes"`
	Accesses   uint64    `json:"accesses"` // sampled and hinted accesses so far
}

// PlacementPageBlocks is the default and the largest limit of a
// placement request: the blocks one answer lists at most (a region's
// page, or all the pages of GET /v1/placement together).
const PlacementPageBlocks = 65536

// Placement is where the pages of a page of a region's blocks live:
// blocks [Offset, Offset+len(Blocks)) of its TotalBlocks.
type Placement struct {
	Region    uint64 `json:"region"`
	PID       int    `json:"pid"`
	BlockSize uint64 `json:"block_size"`
	// Offset is the index of the first block of Blocks; TotalBlocks the
	// region's blocks.
	Offset      int `json:"offset"`
	TotalBlocks int `json:"total_blocks"`
	// NextOffset is the offset of the next page; absent on the last.
	NextOffset *int `json:"next_offset,omitempty"`
	// Nodes maps a NUMA node ID (decimal string) to the page's blocks
	// whose first page is on it.
	Nodes map[string]int `json:"nodes"`
	// Blocks has one entry per block of the page, in address order.
	Blocks     []BlockPlacement `json:"blocks"`
	FastBlocks int              `json:"fast_blocks"` // of the page
	SlowBlocks int              `json:"slow_blocks"`
	// Unmapped counts the page's blocks with no page present yet.
	Unmapped int `json:"unmapped"`
}

// BlockPlacement is one block's node, tier and heat.
type BlockPlacement struct {
	Node int    `json:"node"` // -1 when no page is present
	Tier string `json:"tier"` // "fast", "slow" or "none"
	Heat uint32 `json:"heat"` // accesses in the recent epochs
}

// Status is the daemon's health and activity.
type Status struct {
	Version       string          `json:"version"`
	PID           int             `json:"pid"`
	Started       time.Time       `json:"started"`
	UptimeSeconds float64         `json:"uptime_seconds"`
	ConfigFile    string          `json:"config_file"`
	Policy        string          `json:"policy"`
	Budgets       Budgets         `json:"budgets"`
	BudgetUse     BudgetUse       `json:"budget_use"`
	Samplers      []SamplerStatus `json:"samplers"`
	Epoch         EpochStatus     `json:"epoch"`
	// CPUSeconds is the daemon's own CPU time (user and system) since it
	// started; its samplers' kernel threads are in Samplers.
	CPUSeconds    float64        `json:"cpu_seconds"`
	Regions       int            `json:"regions"`
	Tenants       []TenantStatus `json:"tenants"`
	SingleNode    bool           `json:"single_node"` // every block is fast; nothing moves
	Moving        bool           `json:"moving"`      // the daemon moves pages
	KernelTiering KernelTiering  `json:"kernel_tiering"`
	Recording     TraceStatus    `json:"recording"`
	// NodeBackoff lists the nodes found full (ENOMEM) whose moves are
	// held: the daemon plans no moves to them until the backoff ends.
	NodeBackoff []NodeBackoff `json:"node_backoff,omitempty"`
	// Sampling says whether the samplers see steady-state accesses
	// (absent from daemons that predate it).
	Sampling *SamplingStatus `json:"sampling,omitempty"`
}

// SamplingStatus says whether any attached sampler sees steady-state
// accesses: a process re-reading memory that is already resident. The
// page-fault samplers (sw-page-faults, fault) see first touches and NUMA
// hinting faults only; perf, damon and uprobe hints see steady state.
type SamplingStatus struct {
	SteadyState bool `json:"steady_state"`
	// Problem says, when SteadyState is false, what the daemon lacks and
	// what still moves blocks.
	Problem string `json:"problem,omitempty"`
}

// NodeBackoff is a full node the daemon backs off from.
type NodeBackoff struct {
	Node int    `json:"node"`
	Held string `json:"held"` // "demotions" (the slow node) or "promotions"
	// Epochs is the current backoff's length (it doubles each time the
	// node is found full again, up to a cap); EpochsLeft how many plans
	// are still held.
	Epochs     int    `json:"epochs"`
	EpochsLeft int    `json:"epochs_left"`
	TimesFull  int    `json:"times_full"`
	FreeBytes  uint64 `json:"free_bytes"` // when last found full
}

// Budgets are the configured limits; 0 is no limit.
type Budgets struct {
	FastBytes          int64            `json:"fast_bytes"`
	Tenants            map[string]int64 `json:"tenants"`
	MigrateBytesPerSec int64            `json:"migrate_bytes_per_sec"`
	PagesPerEpoch      int              `json:"pages_per_epoch"`
}

// BudgetUse is how much of the budgets the last epoch used.
type BudgetUse struct {
	FastBytes     int64 `json:"fast_bytes"`
	PagesMoved    int   `json:"pages_moved"` // in the last epoch
	BytesPerSec   int64 `json:"bytes_per_sec"`
	FastCapacity  int64 `json:"fast_capacity"` // the capacity the planner used
	DeferredMoves int   `json:"deferred_moves"`
}

// SamplerStatus is one sampler's counters.
type SamplerStatus struct {
	Name    string `json:"name"`
	Events  uint64 `json:"events"`
	Drops   uint64 `json:"drops"`
	Watched int    `json:"watched"`
	Error   string `json:"error,omitempty"`
	// KernelCPUSeconds is the CPU time of kernel threads working for the
	// sampler (damon: its kdamond), not part of the daemon's own.
	KernelCPUSeconds float64 `json:"kernel_cpu_seconds"`
}

// EpochStatus describes the epoch loop.
type EpochStatus struct {
	Length          string  `json:"length"`
	Count           uint64  `json:"count"`
	LastSeconds     float64 `json:"last_seconds"`
	DecisionSeconds float64 `json:"decision_seconds"`
	LastError       string  `json:"last_error,omitempty"`
}

// TenantStatus is one tenant's use of the fast tier.
type TenantStatus struct {
	Name      string `json:"name"`
	Budget    int64  `json:"budget"`
	FastBytes int64  `json:"fast_bytes"`
	SlowBytes int64  `json:"slow_bytes"`
	Regions   int    `json:"regions"`
}

// KernelTiering is what the daemon found of the kernel's own tiering and
// what it did about it.
type KernelTiering struct {
	Mode          string `json:"mode"` // refuse, disable or report
	NUMABalancing string `json:"numa_balancing,omitempty"`
	Demotion      string `json:"demotion,omitempty"`
	Action        string `json:"action"`
}

// Topology is the NUMA layout as the daemon classified it.
type Topology struct {
	Nodes []Node `json:"nodes"`
}

// Node is one NUMA node.
type Node struct {
	ID        int    `json:"id"`
	CPUs      []int  `json:"cpus"`
	MemTotal  uint64 `json:"mem_total_bytes"`
	MemFree   uint64 `json:"mem_free_bytes"`
	Distances []int  `json:"distances"`
	Tier      int    `json:"tier"`
	Class     string `json:"class"`
	Reason    string `json:"reason"`
}

// PolicyInfo is the running policy and budgets.
type PolicyInfo struct {
	Spec    string            `json:"spec"`
	Name    string            `json:"name"`
	Params  map[string]string `json:"params"`
	Epoch   string            `json:"epoch"`
	Budgets Budgets           `json:"budgets"`
	// Planner is the planner's tuning (the config's planner block).
	Planner PlannerParams `json:"planner"`
}

// PlannerParams tune the planner: heat decay per epoch, the hysteresis
// after a move and the heat a slow block needs to be promoted.
type PlannerParams struct {
	Decay      float64 `json:"decay"`
	Cooldown   string  `json:"cooldown"`
	PromoteMin float64 `json:"promote_min"`
	// ReuseEpochs: a slow block is promoted only after sampled accesses
	// in two epochs at most this many apart (0: one epoch's accesses).
	ReuseEpochs int `json:"reuse_epochs"`
	// Headroom: the share of the fast tier kept free for promotions by
	// demoting blocks with no recent accesses (0: none).
	Headroom float64 `json:"headroom"`
	// ReconcileEpochs and ReconcilePages: how often the daemon re-reads
	// where its blocks are (0: never) and how many pages a pass reads.
	ReconcileEpochs int `json:"reconcile_epochs"`
	ReconcilePages  int `json:"reconcile_pages"`
}

// Event types on the event stream.
const (
	EventMigration          = "migration"
	EventRegret             = "regret"
	EventCrossTenantEvict   = "cross_tenant_eviction"
	EventRegionRegistered   = "region_registered"
	EventRegionDropped      = "region_dropped"
	EventRegionUnregistered = "region_unregistered"
	EventConfigReloaded     = "config_reloaded"
	EventMigrationError     = "migration_error"
	EventNodeFull           = "node_full"
)

// Event is one line of the event stream.
type Event struct {
	Seq       uint64    `json:"seq"`
	Time      time.Time `json:"time"`
	Type      string    `json:"type"`
	Region    uint64    `json:"region,omitempty"`
	PID       int       `json:"pid,omitempty"`
	Tenant    string    `json:"tenant,omitempty"`
	By        string    `json:"by,omitempty"`        // tenant whose need caused a cross-tenant eviction
	Direction string    `json:"direction,omitempty"` // "promote" or "demote"
	Blocks    int       `json:"blocks,omitempty"`
	Pages     int       `json:"pages,omitempty"`
	Bytes     int64     `json:"bytes,omitempty"`
	Block     *uint64   `json:"block,omitempty"` // block index for per-block events
	Node      *int      `json:"node,omitempty"`  // NUMA node of node events
	Reason    string    `json:"reason,omitempty"`
}

// TraceRequest starts recording a trace to Path: a new file inside the
// daemon's record directory, named relative to it or by an absolute path.
type TraceRequest struct {
	Path string `json:"path"`
}

// TraceStatus is the state of trace recording.
type TraceStatus struct {
	Recording bool   `json:"recording"`
	Path      string `json:"path,omitempty"`
	Records   uint64 `json:"records"`
}

// Error is the body of every error response.
type Error struct {
	Error string `json:"error"`
}
