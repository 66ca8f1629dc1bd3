package sim

import (
	"math"
	"strings"
)

// Stat is a mean and a population standard deviation over seeds.
type Stat struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
}

// Aggregate summarises the runs of one (workload, scenario, quantisation,
// policy) cell over its seeds.
type Aggregate struct {
	Workload     string `json:"workload"`
	Scenario     string `json:"scenario"`
	Quant        string `json:"quant"`
	Policy       string `json:"policy"`
	Runs         int    `json:"runs"`
	MeanLatency  Stat   `json:"mean_latency_ms"`
	P99Latency   Stat   `json:"p99_latency_ms"`
	FastHitRatio Stat   `json:"fast_hit_ratio"`
	BytesMoved   Stat   `json:"bytes_moved"`
	Repromotion  Stat   `json:"repromotion_rate"`
	// Headroom is NaN when a run of the cell had no headroom to capture.
	Headroom Stat `json:"-"`
	// Belady is Bélády's fast-tier hit ratio on the cell's traces, NaN
	// when a run of the cell has none. In the lab model (Mode "lab") it is
	// the model's tier-0 Bélády (package sim/lab, belady.go).
	Belady Stat `json:"-"`
	// Mode is the cell's simulation mode ("lab" for the lab model).
	Mode string `json:"-"`
}

// WorkloadName returns a result's workload without its parameters.
func WorkloadName(spec string) string {
	name, _, _ := strings.Cut(spec, ":")
	return name
}

// Aggregate groups results by workload name, scenario, quantisation and
// policy, in order of first appearance.
func AggregateResults(rs []Result) []Aggregate {
	type key struct{ w, s, q, p string }
	idx := map[key]int{}
	var keys []key
	groups := map[key][]Result{}
	for _, r := range rs {
		k := key{WorkloadName(r.Workload), r.Scenario, r.Quant, r.Policy}
		if _, ok := idx[k]; !ok {
			idx[k] = len(keys)
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]Aggregate, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		pick := func(f func(Result) float64) Stat {
			xs := make([]float64, len(g))
			for i, r := range g {
				xs[i] = f(r)
			}
			return stat(xs)
		}
		out = append(out, Aggregate{
			Workload: k.w, Scenario: k.s, Quant: k.q, Policy: k.p, Runs: len(g),
			MeanLatency:  pick(func(r Result) float64 { return r.MeanLatencyMs }),
			P99Latency:   pick(func(r Result) float64 { return r.P99LatencyMs }),
			FastHitRatio: pick(func(r Result) float64 { return r.FastHitRatio }),
			BytesMoved:   pick(func(r Result) float64 { return float64(r.BytesDemand + r.BytesPrefetch) }),
			Repromotion:  pick(func(r Result) float64 { return r.RepromotionRate }),
			Headroom: pick(func(r Result) float64 {
				if r.Headroom == nil {
					return math.NaN()
				}
				return *r.Headroom
			}),
			Belady: pick(func(r Result) float64 { return r.BeladyHitRatio }),
			Mode:   g[0].Mode,
		})
	}
	return out
}

func stat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return Stat{Mean: m, Std: math.Sqrt(v / float64(len(xs)))}
}
