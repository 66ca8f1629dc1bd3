package lab

import (
	"fmt"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// SweepScenario is a scenario of the lab's default sweep: the kvlab tiers
// with every capacity divided by Divisor (integer division, at least 1),
// a quantisation and a prefetch depth (0: off).
type SweepScenario struct {
	Name     string
	Divisor  int64
	Quant    string
	Prefetch int
}

// Sweep is the lab's default benchmark sweep (scripts/run_benchmarks.py
// and kv_hierarchy_lab/bench/scenarios.py at its commit 44700f89, the
// sweep of its artifacts/default_sweep): every scenario x workload (at
// the lab's default parameters and seed) x policy, in that order.
type Sweep struct {
	Scenarios []SweepScenario
	Workloads []string
	Policies  []string
}

// DefaultSweep returns the lab's default sweep: five scenarios (small =
// capacities halved, base, constrained = quartered; fp16, int4 or fp8;
// prefetch at the lab's max_prefetch_candidates of 2 or off), its seven
// workloads and its six policies: 210 runs.
func DefaultSweep() Sweep {
	return Sweep{
		Scenarios: []SweepScenario{
			{"small_fp16_prefetch", 2, "fp16", 2},
			{"small_fp16_no_prefetch", 2, "fp16", 0},
			{"small_int4_no_prefetch", 2, "int4", 0},
			{"base_fp8_prefetch", 1, "fp8", 2},
			{"constrained_fp16_prefetch", 4, "fp16", 2},
		},
		Workloads: []string{"chat_continuation", "rag_burst", "periodic_reuse", "long_tail_mix",
			"prefetch_friendly", "adversarial_burst", "mixed_locality"},
		Policies: []string{PolicyLRU, PolicyWindowed, PolicyHeavy, PolicyCost, PolicyPredictive, PolicyRegret},
	}
}

// Run runs the sweep; each result's seed is its workload's default seed.
func (s Sweep) Run() ([]Result, error) {
	base, err := sim.NewHierarchy("kvlab", "base")
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, sc := range s.Scenarios {
		if sc.Divisor < 1 {
			return nil, fmt.Errorf("%w: sweep scenario %s: divisor %d: want >= 1", sim.ErrBadConfig, sc.Name, sc.Divisor)
		}
		h := base
		h.Scenario = sc.Name
		h.Tiers = append([]sim.Tier(nil), base.Tiers...)
		for i := range h.Tiers {
			h.Tiers[i].Capacity = max(1, h.Tiers[i].Capacity/sc.Divisor)
		}
		q, err := sim.ParseQuant(sc.Quant)
		if err != nil {
			return nil, fmt.Errorf("%w: sweep scenario %s: %w", sim.ErrBadConfig, sc.Name, err)
		}
		for _, w := range s.Workloads {
			rs, err := s.runWorkload(sc, h, q, w)
			if err != nil {
				return nil, err
			}
			out = append(out, rs...)
		}
	}
	return out, nil
}

func (s Sweep) runWorkload(sc SweepScenario, h sim.Hierarchy, q sim.Quant, w string) ([]Result, error) {
	p, err := trace.LabDefaults(w)
	if err != nil {
		return nil, err
	}
	p.BytesPerScalar = q.BytesPerScalar()
	lt, err := trace.LabWorkload(w, p)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, ps := range s.Policies {
		sp, err := ParseSpec(ps)
		if err != nil {
			return nil, err
		}
		r, err := Run(Config{Scenario: sc.Name, Hierarchy: h, Trace: lt, Seed: p.Seed, Spec: sp, Quant: q,
			Prefetch: sc.Prefetch})
		if err != nil {
			return nil, fmt.Errorf("lab sweep %s %s %s: %w", sc.Name, w, ps, err)
		}
		r.Policy = ps // the sweep's names are the lab's specs: regret_aware, not regret_aware_w6.0_h24
		out = append(out, r)
	}
	return out, nil
}
