package sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/kvtier/kvtier/policy"
)

// Run replays t under cfg with a fresh policy and returns the measures.
// Policy time is the access index (0, 1, 2, ...), the unit of the seed
// study's horizons, whatever the trace's own timestamps.
func Run(cfg Config, t *Trace) (res Result, err error) {
	defer func() {
		// A policy bug must not take down a whole grid: report it as this
		// run's error.
		if p := recover(); p != nil {
			res, err = Result{}, fmt.Errorf("%w: policy %s on %s: %v", ErrPolicyPanic, cfg.Policy, t.Name, p)
		}
	}()
	return run(cfg, t)
}

func run(cfg Config, t *Trace) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	res := Result{Policy: cfg.Policy, Workload: t.Name, Mode: cfg.Mode.String(), Quant: cfg.Quant.String(),
		Seed: cfg.Seed}
	if cfg.Mode != ModeBlocks {
		res.Preset, res.Scenario = cfg.Hierarchy.Preset, cfg.Hierarchy.Scenario
	}
	var out Result
	switch cfg.Mode {
	case ModeTiering:
		s, err := newTiering(&cfg, t)
		if err != nil {
			return Result{}, err
		}
		if err := s.run(t); err != nil {
			return Result{}, err
		}
		out = s.res
	default:
		pol, err := policy.New(cfg.Policy, cfg.env())
		if err != nil {
			return Result{}, fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
		var next []uint32
		if NeedsNext(cfg.Policy) {
			if next, err = t.nextUses(); err != nil {
				return Result{}, err
			}
		}
		e := newEngine(&cfg, t, pol)
		if err := e.run(t, next); err != nil {
			return Result{}, err
		}
		out = e.res
	}
	out.Policy, out.Workload, out.Mode, out.Quant, out.Seed = res.Policy, res.Workload, res.Mode, res.Quant, res.Seed
	out.Preset, out.Scenario = res.Preset, res.Scenario
	return out, nil
}

// ErrPolicyPanic is returned when a policy panicked during a run.
var ErrPolicyPanic = errors.New("policy panicked")

// Reference names the rows Compare adds.
const (
	RefLRU    = "lru"
	RefBelady = "belady"
)

// SetReference records LRU's and Bélády's hit ratios in r and the share of
// the LRU-to-Bélády headroom r captures: (r - lru) / (belady - lru), or
// nil when Bélády does no better than LRU.
func SetReference(r *Result, lru, belady float64) {
	r.LRUHitRatio, r.BeladyHitRatio = lru, belady
	r.Headroom = nil
	if gap := belady - lru; gap > 1e-12 {
		h := (r.FastHitRatio - lru) / gap
		if !math.IsNaN(h) {
			r.Headroom = &h
		}
	}
}
