package lab

import (
	"fmt"
	"strconv"
	"strings"

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
	var kv []string
	for _, p := range []struct {
		k string
		v int
	}{{"pages", w.Params.Pages}, {"steps", w.Params.Length}, {"period", w.Params.Period}, {"burst", w.Params.Burst}} {
		if p.v > 0 {
			kv = append(kv, p.k+"="+strconv.Itoa(p.v))
		}
	}
	if len(kv) == 0 {
		return w.Name
	}
	return w.Name + ":" + strings.Join(kv, ",")
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
	// Prefetch is every run's prefetch depth (Config.Prefetch; 0 off).
	Prefetch int
	// Moves, when set, receives every run's page moves (Config.Moves).
	Moves sim.MoveLog
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
	if err := g.Validate(); err != nil {
		return nil, err
	}
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
		bel, err := beladyHitRatio(h, lt, q)
		if err != nil {
			return nil, fmt.Errorf("lab %s %s seed %d belady: %w", sc, w.Name, seed, err)
		}
		for _, sp := range specs {
			r, err := Run(Config{Scenario: sc, Hierarchy: h, Trace: lt, Seed: seed, Spec: sp, Quant: q,
				Prefetch: g.Prefetch, Moves: g.Moves})
			if err != nil {
				return nil, fmt.Errorf("lab %s %s seed %d %s: %w", sc, w.Name, seed, sp.LabName(), err)
			}
			r.BeladyHitRatio = bel
			out = append(out, r)
		}
	}
	return out, nil
}

// SimGrid describes the grid as a simulator grid, for artifact metadata.
func (g Grid) SimGrid() sim.Grid {
	sg := sim.Grid{Name: g.Name, Preset: "kvlab", Mode: sim.ModeLab, Scenarios: g.Scenarios, Quants: g.Quants, Seeds: g.Seeds}
	for _, p := range g.Policies {
		sg.Policies = append(sg.Policies, sim.Sweep{Name: p})
	}
	for _, w := range g.Workloads {
		sg.Workloads = append(sg.Workloads, w.Spec())
	}
	return sg
}

// ParseWorkload parses a lab workload spec: a name of
// trace.LabWorkloads() and optional pages, steps (the lab's length),
// period and burst, as in "periodic_reuse:pages=96,steps=640,period=11".
func ParseWorkload(spec string) (Workload, error) {
	name, params, _ := strings.Cut(spec, ":")
	if _, err := trace.LabDefaults(name); err != nil {
		return Workload{}, err
	}
	w := Workload{Name: name}
	for kv := range strings.SplitSeq(params, ",") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return Workload{}, fmt.Errorf("%w: lab workload %s: %s=%q: want an integer > 0", trace.ErrBadParam, name, k, v)
		}
		switch k {
		case "pages":
			w.Params.Pages = n
		case "steps":
			w.Params.Length = n
		case "period":
			w.Params.Period = n
		case "burst":
			w.Params.Burst = n
		default:
			return Workload{}, fmt.Errorf("%w: lab workload %s has no parameter %q (want pages, steps, period, burst)",
				trace.ErrBadParam, name, k)
		}
	}
	return w, nil
}

// GridFromSim turns a grid file with "mode": "lab" into a lab grid: its
// policy specs are lab specs (lru, cost_aware, regret_aware with
// parameters, or kvtier:SPEC), its workloads lab workload specs
// (ParseWorkload), its preset kvlab or empty.
func GridFromSim(sg sim.Grid) (Grid, error) {
	if sg.Mode != sim.ModeLab || (sg.Preset != "" && sg.Preset != "kvlab") {
		return Grid{}, fmt.Errorf("%w: grid %q: want mode lab and preset kvlab", sim.ErrBadConfig, sg.Name)
	}
	g := Grid{Name: sg.Name, Policies: sg.Specs(), Scenarios: sg.Scenarios, Quants: sg.Quants, Seeds: sg.Seeds}
	if len(g.Quants) == 0 {
		g.Quants = []string{"fp16"}
	}
	for _, ws := range sg.Workloads {
		w, err := ParseWorkload(ws)
		if err != nil {
			return Grid{}, fmt.Errorf("%w: grid %q: %w", sim.ErrBadConfig, sg.Name, err)
		}
		g.Workloads = append(g.Workloads, w)
	}
	return g, g.Validate()
}

// Validate checks the grid's names and values before anything runs.
func (g Grid) Validate() error {
	if g.runs() == 0 {
		return fmt.Errorf("%w: lab grid %q needs policies, scenarios, workloads, quants and seeds", sim.ErrBadConfig, g.Name)
	}
	for _, p := range g.Policies {
		if _, err := ParseSpec(p); err != nil {
			return fmt.Errorf("%w: lab grid %q: %w", sim.ErrBadConfig, g.Name, err)
		}
	}
	for _, sc := range g.Scenarios {
		if _, err := sim.NewHierarchy("kvlab", sc); err != nil {
			return err
		}
	}
	for _, q := range g.Quants {
		if _, err := sim.ParseQuant(q); err != nil {
			return fmt.Errorf("%w: lab grid %q: %w", sim.ErrBadConfig, g.Name, err)
		}
	}
	if g.Prefetch < 0 {
		return fmt.Errorf("%w: lab grid %q: prefetch depth %d: want >= 0", sim.ErrBadConfig, g.Name, g.Prefetch)
	}
	for _, s := range g.Seeds {
		if s < 0 {
			return fmt.Errorf("%w: lab grid %q: seed %d: want >= 0 (a Python seed)", sim.ErrBadConfig, g.Name, s)
		}
	}
	return nil
}
