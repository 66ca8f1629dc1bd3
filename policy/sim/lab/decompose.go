package lab

import (
	"fmt"
	"io"
	"strings"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// Stages are the steps from the lab's preset to kvtier's, in order: each
// changes one thing of the one before.
var Stages = []string{
	"lab",           // the lab's model, policies and traces
	"+cold",         // cold misses as sim charges them (Model.ColdDirect)
	"+hit",          // and hits pay size/bandwidth (Model.HitBandwidth)
	"+lower",        // and LRU below tier 0 (Model.LRUBelow): sim's cost model, the lab's policies
	"kvtier-policy", // sim itself with kvtier's policies, on the lab's traces
	"kvtier",        // sim on kvtier's own generators: the kvtier preset
}

// Step is one cell of the decomposition: means over the grid's seeds.
type Step struct {
	Scenario, Workload, Policy, Stage string
	MeanLatencyMs, HitRatio           float64
}

// Decompose runs the grid at every stage of Stages and returns, for each
// scenario, workload, policy and stage, the mean over seeds of the mean
// latency and of the fast-tier hit ratio. The grid's policy specs must be
// valid for kvtier too once a "kvtier:" prefix is dropped (the lab
// ablation's are); the last stage runs kvtier's generator of the same name
// (see kvtierParams).
func Decompose(g Grid) ([]Step, error) {
	models := []Model{{}, {ColdDirect: true}, {ColdDirect: true, HitBandwidth: true},
		{ColdDirect: true, HitBandwidth: true, LRUBelow: true}}
	var out []Step
	for _, sc := range g.Scenarios {
		h, err := sim.NewHierarchy("kvlab", sc)
		if err != nil {
			return nil, err
		}
		for _, w := range g.Workloads {
			for _, spec := range g.Policies {
				sp, err := ParseSpec(spec)
				if err != nil {
					return nil, err
				}
				for i, stage := range Stages {
					lat, hit, err := stageMeans(g.Seeds, h, w, spec, sp, stage, models, i)
					if err != nil {
						return nil, fmt.Errorf("%s %s %s %s: %w", sc, w.Name, spec, stage, err)
					}
					out = append(out, Step{sc, w.Name, sp.LabName(), stage, lat, hit})
				}
			}
		}
	}
	return out, nil
}

func stageMeans(seeds []int64, h sim.Hierarchy, w Workload, spec string, sp Spec, stage string,
	models []Model, i int) (lat, hit float64, err error) {
	for _, seed := range seeds {
		p := w.Params
		p.Seed = seed
		lt, err := trace.LabWorkload(w.Name, p)
		if err != nil {
			return 0, 0, err
		}
		var l, r float64
		switch {
		case i < len(models):
			res, err := Run(Config{Hierarchy: h, Trace: lt, Seed: seed, Spec: sp, Model: models[i]})
			if err != nil {
				return 0, 0, err
			}
			l, r = res.MeanLatencyMs, res.HitRatio
		default:
			open := func() (trace.Reader, error) { return lt.Reader(), nil }
			if stage == "kvtier" {
				open = func() (trace.Reader, error) { return trace.NewWorkload(w.Name, kvtierParams(w, seed)) }
			}
			if l, r, err = simMeans(open, h, strings.TrimPrefix(spec, PolicyKvtier+":"), seed); err != nil {
				return 0, 0, err
			}
		}
		lat += l / float64(len(seeds))
		hit += r / float64(len(seeds))
	}
	return lat, hit, nil
}

// kvtierParams are the parameters of kvtier's generator of the same name:
// the lab workload's pages, steps, period and burst where given, else
// kvtier's defaults.
func kvtierParams(w Workload, seed int64) trace.WorkloadParams {
	return trace.WorkloadParams{Seed: seed, Pages: w.Params.Pages, Steps: w.Params.Length,
		Period: w.Params.Period, Burst: w.Params.Burst}
}

func simMeans(open sim.Opener, h sim.Hierarchy, spec string, seed int64) (lat, hit float64, err error) {
	t, err := sim.Prepare(spec, open)
	if err != nil {
		return 0, 0, err
	}
	r, err := sim.Run(sim.Config{Policy: spec, Hierarchy: h, Mode: sim.ModeCache, Seed: seed}, t)
	if err != nil {
		return 0, 0, err
	}
	return r.MeanLatencyMs, r.FastHitRatio, nil
}

// WriteSteps prints the decomposition as a Markdown table: one row per
// scenario, workload and policy, one column per stage, each cell the mean
// latency in ms and the fast-tier hit ratio in percent.
func WriteSteps(w io.Writer, steps []Step) error {
	head := "| scenario | workload | policy | " + strings.Join(Stages, " | ") + " |\n|" +
		strings.Repeat(" --- |", 3+len(Stages)) + "\n"
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	for i := 0; i+len(Stages) <= len(steps); i += len(Stages) {
		s := steps[i]
		row := fmt.Sprintf("| %s | %s | %s |", s.Scenario, s.Workload, s.Policy)
		for _, c := range steps[i : i+len(Stages)] {
			row += fmt.Sprintf(" %.3f ms, %.1f%% |", c.MeanLatencyMs, 100*c.HitRatio)
		}
		if _, err := io.WriteString(w, row+"\n"); err != nil {
			return err
		}
	}
	return nil
}
