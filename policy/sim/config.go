package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvtier/kvtier/policy"
)

// Mode is a simulation model.
type Mode uint8

// Modes.
const (
	// ModeCache is the seed study's model: every access outside tier 0
	// promotes the block, evicting policy victims; demotions cascade.
	ModeCache Mode = iota
	// ModeTiering is the daemon's model: epochs, sampled accesses, slow
	// accesses served in place, the planner moves blocks within a budget.
	ModeTiering
	// ModeBlocks is a single tier of CapacityBlocks unit-size blocks.
	ModeBlocks
)

var modeNames = [...]string{"cache", "tiering", "blocks"}

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// ParseMode parses cache, tiering or blocks.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if strings.EqualFold(s, n) {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("%w: mode %q: want cache, tiering or blocks", ErrBadConfig, s)
}

// Config is one simulation run's setting (the trace aside).
type Config struct {
	Policy    string    // policy spec
	Hierarchy Hierarchy // tiers (ignored by ModeBlocks)
	Mode      Mode
	Quant     Quant
	Seed      int64 // seeds the policy and the tiering sampler
	// Horizon is the re-promotion horizon in accesses; 0 means 24 (the
	// seed study's default regret horizon).
	Horizon int64
	// Prefetch is the number of following blocks (by key) promoted after
	// a demand miss, when already known to the hierarchy; 0 is off.
	Prefetch int
	// CapacityBlocks is ModeBlocks' capacity.
	CapacityBlocks int
	// Tiering mode.
	SampleRate float64 // share of accesses the sampler sees; 0 means 1
	Epoch      int     // accesses per epoch; 0 means 16
	MoveBlocks int     // blocks moved per epoch; 0 unlimited
	MoveBytes  int64   // bytes moved per epoch; 0 unlimited
	Cooldown   int64   // planner hysteresis in accesses
	PromoteMin float64 // planner promotion threshold (sampled accesses); 0 means 1
	Decay      float64 // planner heat decay per epoch, in [0,1)
	Reuse      int     // planner reuse window in epochs (plan.Config.Reuse); 0 is off
	Headroom   float64 // planner headroom (plan.Config.Headroom); 0 is off
	// Moves, when set, receives every move of the run's blocks between
	// tiers (cache and blocks modes through the engine; not the streamed
	// compact engine, not tiering mode). Reference rows (CompareWith's
	// LRU and Bélády) do not log.
	Moves MoveLog
}

func (c *Config) horizon() int64 {
	if c.Horizon == 0 {
		return 24
	}
	return c.Horizon
}

func (c *Config) sampleRate() float64 {
	if c.SampleRate == 0 {
		return 1
	}
	return c.SampleRate
}

func (c *Config) epoch() int {
	if c.Epoch == 0 {
		return 16
	}
	return c.Epoch
}

// Validate checks the run's parameters; every error wraps ErrBadConfig.
func (c *Config) Validate() error {
	switch {
	case c.Mode > ModeBlocks:
		return fmt.Errorf("%w: mode %d", ErrBadConfig, c.Mode)
	case c.Mode == ModeBlocks && c.CapacityBlocks <= 0:
		return fmt.Errorf("%w: capacity-blocks = %d: want > 0 in blocks mode", ErrBadConfig, c.CapacityBlocks)
	case c.Horizon < 0:
		return fmt.Errorf("%w: horizon = %d: want >= 0", ErrBadConfig, c.Horizon)
	case c.Prefetch < 0:
		return fmt.Errorf("%w: prefetch = %d: want >= 0", ErrBadConfig, c.Prefetch)
	case c.Prefetch > 0 && c.Mode != ModeCache:
		return fmt.Errorf("%w: prefetch = %d: cache mode only (this run is in %s mode)", ErrBadConfig, c.Prefetch, c.Mode)
	case c.SampleRate < 0 || c.SampleRate > 1:
		return fmt.Errorf("%w: sample rate = %g: want a share in (0,1]", ErrBadConfig, c.SampleRate)
	case c.Epoch < 0 || c.MoveBlocks < 0 || c.MoveBytes < 0 || c.Cooldown < 0 || c.PromoteMin < 0:
		return fmt.Errorf("%w: epoch, budgets, cooldown and promote-min must be >= 0", ErrBadConfig)
	case int(c.Quant) >= len(quantInfo):
		return fmt.Errorf("%w: quantisation %d", ErrBadConfig, c.Quant)
	}
	if c.Mode != ModeBlocks {
		return c.Hierarchy.Validate()
	}
	return nil
}

// hierarchy returns the tiers the run uses: ModeBlocks has one tier of
// CapacityBlocks unit blocks that costs nothing.
func (c *Config) hierarchy() Hierarchy {
	if c.Mode == ModeBlocks {
		return Hierarchy{Preset: "blocks", Tiers: []Tier{{Name: "blocks",
			Capacity: int64(c.CapacityBlocks), Bandwidth: math.Inf(1)}}}
	}
	return c.Hierarchy
}

// env returns the policy environment for the fast tier.
func (c *Config) env() policy.Env {
	h := c.hierarchy()
	env := policy.Env{CapacityBytes: h.Tiers[0].Capacity, Seed: c.Seed}
	if c.Mode == ModeBlocks {
		env.CapacityBlocks = c.CapacityBlocks
	}
	return env
}
