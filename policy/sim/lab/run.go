package lab

import (
	"fmt"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// Result holds the lab's measures of one run, named as in its
// raw_results.json where they exist.
type Result struct {
	Scenario string `json:"scenario"`
	Workload string `json:"workload"`
	Policy   string `json:"policy"` // the lab's name (regret_aware_w6.0_h24)
	Quant    string `json:"quantization_scheme"`
	Seed     int64  `json:"seed"`

	Accesses int64 `json:"accesses"`
	// Misses counts accesses not served by tier 0 (miss_count);
	// ColdMisses those no tier held.
	Misses     int64 `json:"miss_count"`
	ColdMisses int64 `json:"cold_misses"`
	// Evictions counts pages leaving any tier (eviction_count).
	Evictions int64 `json:"eviction_count"`
	// BytesMoved counts promotions and demotions (bytes_moved); cold
	// insertions into the slowest tier move nothing. PrefetchBytes is the
	// part moved by prefetches, DemandBytes the rest.
	BytesMoved    int64 `json:"bytes_moved"`
	DemandBytes   int64 `json:"demand_bytes_moved"`
	PrefetchBytes int64 `json:"prefetch_bytes_moved"`
	// PrefetchRequests counts prefetches issued; each is later useful
	// (accessed while in tier 0) or wasted (left tier 0 first, or still
	// pending at the end). PrefetchUsefulness is useful / requests (0
	// without requests). See prefetch.go.
	PrefetchRequests   int64   `json:"prefetch_requests"`
	PrefetchUseful     int64   `json:"useful_prefetches"`
	PrefetchWasted     int64   `json:"wasted_prefetches"`
	PrefetchUsefulness float64 `json:"prefetch_usefulness"`
	Prefetch           int     `json:"prefetch_depth"` // Config.Prefetch
	// Hits counts accesses found in each tier (tier 0: hits; below: the
	// misses that tier served).
	Hits          []int64 `json:"hits_per_tier"`
	PeakBytes     []int64 `json:"peak_footprint_bytes"`
	HitRatio      float64 `json:"overall_hit_rate"`
	MeanLatencyMs float64 `json:"avg_latency_ms"`
	// BeladyHitRatio is the tier-0 hit ratio of Bélády on the same trace
	// and hierarchy (see belady.go), set by Grid.Run; 0 otherwise.
	BeladyHitRatio float64 `json:"belady_hit_ratio"`

	latency float64 // total modelled latency, ms
}

// Config is one run: a hierarchy (capacities, latencies, bandwidths), a
// lab trace, a policy and a quantisation (its decode penalty; the trace's
// sizes already carry its footprint).
type Config struct {
	Scenario  string
	Hierarchy sim.Hierarchy
	Trace     trace.LabTrace
	Seed      int64
	Spec      Spec
	Quant     sim.Quant
	Model     Model // the zero Model is the lab's
	// Prefetch is the lab's max_prefetch_candidates: how many of the
	// pages the policy proposes after an access are prefetched (0: the
	// hook is off, as in the lab's ablation). See prefetch.go.
	Prefetch int
	// Moves, when set, receives every page move of the run (moves.go).
	Moves sim.MoveLog
}

// Model switches parts of the lab's model to kvtier's (package sim, cache
// mode), one at a time, to measure what each contributes to the
// difference between the two presets. The zero Model is the lab's.
type Model struct {
	// ColdDirect places a cold miss straight into tier 0 and charges it
	// as sim does: 4x tier 0's read latency, the page at half its
	// bandwidth, the decode penalty. The lab inserts it into
	// the slowest tier and promotes it from there.
	ColdDirect bool
	// HitBandwidth adds the page's bytes at tier 0's bandwidth to a hit,
	// as sim does.
	HitBandwidth bool
	// LRUBelow evicts from the tiers below tier 0 the page longest there
	// (sim's LRU lower tiers), tells the policy only of tier-0 evictions,
	// and takes a promoted page out of its tier before room is made in
	// tier 0 (no stale copies).
	LRUBelow bool
}

// Run replays the trace through the lab model with a fresh policy.
func Run(c Config) (Result, error) {
	pol, err := c.Spec.chooser(c.Hierarchy, c.Trace, c.Seed)
	if err != nil {
		return Result{}, err
	}
	if c.Prefetch < 0 {
		return Result{}, fmt.Errorf("%w: prefetch depth %d: want >= 0", ErrBadSpec, c.Prefetch)
	}
	e := newEngine(c.Hierarchy, c.Trace, c.Quant, pol, c.Model)
	e.moves = moveLog{log: c.Moves, policy: c.Spec.LabName(), trace: runName(c)}
	e.pf.depth = c.Prefetch
	e.pf.pol, _ = pol.(prefetcher)
	for step, page := range c.Trace.Accesses {
		e.step = step
		e.access(page)
		if e.err != nil {
			return Result{}, e.err
		}
	}
	e.finishPrefetch()
	r := e.res
	r.Prefetch = c.Prefetch
	r.Scenario, r.Workload, r.Policy = c.Scenario, c.Trace.Name, c.Spec.LabName()
	r.Quant, r.Seed = c.Quant.String(), c.Seed
	for _, t := range e.tiers {
		r.PeakBytes = append(r.PeakBytes, t.peak)
	}
	if r.Accesses > 0 {
		r.MeanLatencyMs = r.latency / float64(r.Accesses)
		r.HitRatio = 1 - float64(r.Misses)/float64(r.Accesses)
	}
	return r, nil
}

// Sim converts a result into the simulator's Result, so that the usual
// artifacts (raw.json, summary.csv, aggregate.csv, plots) can be written.
// Mode is "lab"; Evictions counts evictions out of every tier; the
// Bélády reference is the lab model's tier-0 Bélády (belady.go); the lab
// model does not measure p99 latency, repromotions, utilisation or the
// LRU reference, which stay zero.
func (r Result) Sim() sim.Result {
	return sim.Result{
		Policy: r.Policy, Workload: r.Workload, Mode: sim.ModeLab, Preset: "lab", Scenario: r.Scenario,
		Quant: r.Quant, Seed: r.Seed, Accesses: r.Accesses, Hits: r.Hits, Misses: r.ColdMisses,
		FastHitRatio: r.HitRatio, Evictions: r.Evictions, BytesDemand: r.DemandBytes,
		BytesPrefetch: r.PrefetchBytes, PrefetchUseful: r.PrefetchUseful, PrefetchWasted: r.PrefetchWasted,
		MeanLatencyMs: r.MeanLatencyMs, Fairness: 1, Tenants: 1, PeakBytes: r.PeakBytes,
		BeladyHitRatio: r.BeladyHitRatio,
	}
}
