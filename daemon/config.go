package daemon

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
)

// Defaults of the config.
const (
	DefaultConfigPath   = "/etc/kvtier/kvtier.hcl"
	DefaultSocket       = "/run/kvtier/kvtier.sock"
	DefaultMetricsAddr  = "127.0.0.1:9477"
	DefaultEpoch        = time.Second
	DefaultScanInterval = 10 * time.Second
	DefaultPolicy       = "lru"
	DefaultMaxBody      = 1 << 20
	DefaultBlockSize    = 2 << 20
	// DefaultDecay is the factor applied to each block's heat per epoch.
	DefaultDecay = 0.5
	// DefaultCooldownEpochs is the planner's hysteresis, in epochs, when
	// the planner block sets no cooldown.
	DefaultCooldownEpochs = 2
	// DefaultReconcileEpochs and DefaultReconcilePages: a placement
	// reconcile pass every 4 epochs, of at most 64 Ki page queries (8
	// pages a block where a region pins nothing: 16 GiB of 2 MiB blocks;
	// a few ms of move_pages queries).
	DefaultReconcileEpochs = 4
	DefaultReconcilePages  = 1 << 16
	// DefaultMaxTenants bounds the tenants tracked at once.
	DefaultMaxTenants = 1024
)

// Kernel tiering modes: what the daemon does when the kernel's own NUMA
// balancing or demotion is on.
const (
	KernelTieringRefuse  = "refuse"  // do not start
	KernelTieringDisable = "disable" // turn the kernel's tiering off
	KernelTieringReport  = "report"  // log it, sample and report, never move
)

// Config is a validated daemon configuration.
type Config struct {
	File          string        // where it was loaded from; "" for defaults
	Epoch         time.Duration // length of one decision epoch
	ScanInterval  time.Duration // how often rules rescan /proc
	KernelTiering string        // refuse, disable or report
	Tiers         Tiers
	Budgets       Budgets
	Planner       PlannerConfig
	Samplers      []SamplerConfig
	Policy        policy.Spec
	Rules         []Rule
	API           APIConfig
	Metrics       MetricsConfig
	Log           LogConfig
	Record        RecordConfig
	// MaxTenants bounds the tenants the daemon tracks at once (configured
	// budgets included); a registration of one more is refused.
	MaxTenants int
	// StateDir holds the registrations file (StateFile), which lets API
	// registrations survive a restart.
	StateDir string
}

// RecordConfig records a kvtier JSONL trace from the daemon's start, and
// says where the API may record.
type RecordConfig struct {
	Path string // "" records nothing until the API asks
	// Dir is the only directory POST /v1/trace writes in (root only, new
	// files only).
	Dir string
}

// Tiers overrides the tier of NUMA nodes. Nodes not listed keep the tier
// the topology discovery gives them.
type Tiers struct {
	Fast []int // node IDs forced into the fast tier
	Slow []int // node IDs forced into the slow tier
}

// Budgets bounds what the daemon may use and move.
type Budgets struct {
	FastBytes          int64            // fast-tier bytes for all regions; 0 is no limit
	Tenants            map[string]int64 // fast-tier bytes per tenant
	MigrateBytesPerSec int64            // migration bandwidth; 0 is no limit
	PagesPerEpoch      int              // pages moved per epoch; 0 is no limit
	// MoveTimeout bounds the mover within an epoch; 0 is three quarters
	// of the epoch.
	MoveTimeout time.Duration
}

// PlannerConfig tunes how the planner ranks and holds blocks.
type PlannerConfig struct {
	// Decay multiplies each block's heat (its decayed sampled accesses)
	// once per epoch, in [0, 1); 0 ranks blocks by this epoch's accesses
	// only.
	Decay float64
	// Cooldown is the hysteresis: a block moved less than Cooldown ago is
	// neither demoted nor promoted back (pinned blocks excepted); 0 turns
	// it off. Unset, it is DefaultCooldownEpochs epochs of the config's
	// epoch length.
	Cooldown time.Duration
	// PromoteMin is the heat a slow block needs to be promoted (> 0).
	PromoteMin float64
	// ReuseEpochs is the evidence of reuse a slow block needs to be
	// promoted: accesses one source saw in two windows of one epoch (two
	// DAMON aggregation intervals, two hints) or in two epochs at most
	// this many epochs apart; 0 promotes on one epoch's accesses.
	ReuseEpochs int
	// Headroom is the share of the fast tier kept free for promotions by
	// demoting blocks with no recent accesses (plan.Config.Headroom).
	Headroom float64
	// ReconcileEpochs is how often (in epochs) the daemon reads where its
	// blocks are and corrects the planner (a block moved by someone else,
	// a pinned block to bring back); 0 turns it off.
	ReconcileEpochs int
	// ReconcilePages bounds the pages one reconcile pass queries (a
	// sample of 8 a block where the region pins nothing, every page where
	// it does): a pass goes on where the previous one stopped, so every
	// region is read within ceil(pages queried / ReconcilePages) passes.
	ReconcilePages int
}

// SamplerConfig selects a sampler by name with its parameters.
type SamplerConfig struct {
	Name   string
	Params map[string]string
}

// Rule matches processes and their mappings and registers them as regions.
type Rule struct {
	Name         string
	Exe          string         // executable path, exact
	Cmdline      *regexp.Regexp // matched against the NUL-joined-by-space cmdline
	Cgroup       string         // cgroup v2 path, exact or prefix ending in /
	Mapping      string         // mapping name (path or [anon:name]), exact
	MinSize      int64          // minimum mapping size in bytes
	BlockSize    int64
	Tenant       string
	Class        policy.Class
	Priority     policy.Priority
	PinnedPrefix int64 // bytes at the start of the region that never leave the fast tier
}

// APIConfig is the API socket.
type APIConfig struct {
	Socket  string
	Mode    os.FileMode
	Group   string // "" keeps the daemon's group
	MaxBody int64  // request body limit in bytes
	// MaxRegions and MaxRegionsPerProcess bound the regions registered at
	// once, in all and of one process; one more is a 429.
	MaxRegions           int
	MaxRegionsPerProcess int
	// ReadTimeout bounds reading one request (headers and body);
	// IdleTimeout closes keep-alive connections that idle that long.
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	// Limits bound the block sizes and names a registration may use.
	Limits Limits
}

// MetricsConfig is the Prometheus listener.
type MetricsConfig struct {
	Listen string // "" disables the listener
}

// LogConfig is the logger.
type LogConfig struct {
	Level string // trace, debug, info, warn, error
	JSON  bool
}

// DefaultConfig returns the configuration used when no file exists: sampler
// "auto" (DefaultSampler), LRU, no budget limits and the default socket.
func DefaultConfig() *Config {
	return &Config{
		Epoch:         DefaultEpoch,
		ScanInterval:  DefaultScanInterval,
		KernelTiering: KernelTieringReport,
		Budgets:       Budgets{Tenants: map[string]int64{}},
		Planner: PlannerConfig{Decay: DefaultDecay, Cooldown: DefaultCooldownEpochs * DefaultEpoch, PromoteMin: 1,
			ReuseEpochs:     plan.DefaultReuse,
			Headroom:        plan.DefaultHeadroom,
			ReconcileEpochs: DefaultReconcileEpochs, ReconcilePages: DefaultReconcilePages},
		MaxTenants: DefaultMaxTenants,
		Policy:     policy.Spec{Name: DefaultPolicy, Params: map[string]string{}},
		API: APIConfig{Socket: DefaultSocket, Mode: 0o660, MaxBody: DefaultMaxBody, MaxRegions: DefaultMaxRegions,
			MaxRegionsPerProcess: DefaultMaxRegionsPerProcess, ReadTimeout: DefaultReadTimeout, Limits: DefaultLimits(),
			IdleTimeout: DefaultIdleTimeout},
		Metrics:  MetricsConfig{Listen: DefaultMetricsAddr},
		Log:      LogConfig{Level: "info"},
		Record:   RecordConfig{Dir: DefaultTraceDir},
		StateDir: DefaultStateDir,
	}
}

// LoadConfig reads and validates the config at path. A missing file at the
// default path yields DefaultConfig; a missing file anywhere else is an
// error.
func LoadConfig(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && path == DefaultConfigPath {
		return DefaultConfig(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return ParseConfig(path, src)
}

// ParseConfig parses and validates an HCL config. Errors are a
// *ConfigError listing every problem with file:line:col.
func ParseConfig(filename string, src []byte) (*Config, error) {
	cfg, diags := decodeConfig(filename, src)
	if diags.HasErrors() {
		return nil, &ConfigError{Diags: diags}
	}
	cfg.File = filename
	return cfg, nil
}

// MoveDeadline is how long the mover may run in one epoch.
func (c *Config) MoveDeadline() time.Duration {
	if c.Budgets.MoveTimeout > 0 && c.Budgets.MoveTimeout < c.Epoch {
		return c.Budgets.MoveTimeout
	}
	return c.Epoch * 3 / 4
}

// TenantBudget returns the fast-tier bytes of a tenant, 0 for no limit.
func (b Budgets) TenantBudget(tenant string) int64 { return b.Tenants[tenant] }
