package lab

import (
	"fmt"
	"strconv"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// Workload is a lab workload and its parameters; each run sets the seed
// and the quantisation's footprint.
type Workload struct {
	Name   string
	Params trace.LabParams
}

// Spec returns the workload as a kvtier spec string
// ("periodic_reuse:pages=96,steps=640,period=11") for metadata.
func (w Workload) Spec() string {
	s := w.Name + ":pages=" + strconv.Itoa(w.Params.Pages) + ",steps=" + strconv.Itoa(w.Params.Length)
	if w.Params.Period > 0 {
		s += ",period=" + strconv.Itoa(w.Params.Period)
	}
	if w.Params.Burst > 0 {
		s += ",burst=" + strconv.Itoa(w.Params.Burst)
	}
	return s
}

// Grid is a lab ablation: every seed x scenario x quantisation x workload
// x policy is one run with a fresh policy, in that order (the lab's).
type Grid struct {
	Name      string
	Policies  []string // lab policy specs (ParseSpec)
	Scenarios []string // base, medium or constrained of the kvlab tiers
	Workloads []Workload
	Quants    []string
	Seeds     []int64
}

// Ablation returns the lab's regret ablation (scripts/run_regret_ablation.py
// of kv-hierarchy-lab): lru, cost_aware and regret_aware at weights
// {1, 6, 12} x horizons {8, 24, 64}; medium and constrained; its three
// workloads at its sizes; fp16; seeds 7, 42 and 91; prefetch off. 198 runs.
func Ablation() Grid {
	pols := []string{PolicyLRU, PolicyCost}
	for _, w := range []string{"1", "6", "12"} {
		for _, h := range []string{"8", "24", "64"} {
			pols = append(pols, PolicyRegret+":weight="+w+",horizon="+h)
		}
	}
	return Grid{
		Name: "lab", Policies: pols, Scenarios: []string{"medium", "constrained"},
		Workloads: []Workload{
			{"chat_continuation", trace.LabParams{Pages: 80, Length: 512}},
			{"periodic_reuse", trace.LabParams{Pages: 96, Length: 640, Period: 11}},
			{"adversarial_burst", trace.LabParams{Pages: 112, Length: 640, Burst: 14}},
		},
		Quants: []string{"fp16"}, Seeds: []int64{7, 42, 91},
	}
}

// Run runs every cell of the grid in the grid's order.
func (g Grid) Run() ([]Result, error) {
	specs := make([]Spec, len(g.Policies))
	for i, p := range g.Policies {
		var err error
		if specs[i], err = ParseSpec(p); err != nil {
			return nil, err
		}
	}
	var out []Result
	for _, seed := range g.Seeds {
		for _, sc := range g.Scenarios {
			h, err := sim.NewHierarchy("kvlab", sc)
			if err != nil {
				return nil, err
			}
			for _, qn := range g.Quants {
				rs, err := g.runCell(h, sc, qn, seed, specs)
				if err != nil {
					return nil, err
				}
				out = append(out, rs...)
			}
		}
	}
	return out, nil
}

func (g Grid) runCell(h sim.Hierarchy, sc, qn string, seed int64, specs []Spec) ([]Result, error) {
	q, err := sim.ParseQuant(qn)
	if err != nil {
		return nil, err
	}
	var out []Result
	for _, w := range g.Workloads {
		p := w.Params
		p.Seed, p.BytesPerScalar = seed, q.BytesPerScalar()
		lt, err := trace.LabWorkload(w.Name, p)
		if err != nil {
			return nil, err
		}
		for _, sp := range specs {
			r, err := Run(Config{Scenario: sc, Hierarchy: h, Trace: lt, Seed: seed, Spec: sp, Quant: q})
			if err != nil {
				return nil, fmt.Errorf("lab %s %s seed %d %s: %w", sc, w.Name, seed, sp.LabName(), err)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// SimGrid describes the grid as a simulator grid, for artifact metadata.
func (g Grid) SimGrid() sim.Grid {
	sg := sim.Grid{Name: g.Name, Preset: "kvlab", Mode: "lab", Scenarios: g.Scenarios, Quants: g.Quants, Seeds: g.Seeds}
	for _, p := range g.Policies {
		sg.Policies = append(sg.Policies, sim.Sweep{Name: p})
	}
	for _, w := range g.Workloads {
		sg.Workloads = append(sg.Workloads, w.Spec())
	}
	return sg
}
