package lab

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// ResultsFile is the name of the per-run CSV the lab preset writes next
// to the simulator's artifacts (WriteResults).
const ResultsFile = "lab_results.csv"

// resultColumns are WriteResults' columns: the lab's results.csv names
// (artifacts/default_sweep), with seed, prefetch depth and the tier-0
// Bélády hit ratio added.
var resultColumns = []string{"seed", "scenario", "workload", "policy", "quantization_scheme", "prefetch_depth",
	"accesses", "miss_count", "eviction_count", "avg_latency_ms", "overall_hit_rate", "belady_hit_ratio",
	"bytes_moved", "demand_bytes_moved", "prefetch_bytes_moved", "prefetch_requests", "useful_prefetches",
	"wasted_prefetches", "prefetch_usefulness"}

// WriteResults writes one CSV row per run with the prefetch figures
// (requests, useful, wasted, usefulness = useful / requests). ReadFigures
// reads the file back.
func WriteResults(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(resultColumns); err != nil {
		return fmt.Errorf("writing lab results: %w", err)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range rs {
		row := []string{i(r.Seed), r.Scenario, r.Workload, r.Policy, r.Quant, strconv.Itoa(r.Prefetch),
			i(r.Accesses), i(r.Misses), i(r.Evictions), f(r.MeanLatencyMs), f(r.HitRatio), f(r.BeladyHitRatio),
			i(r.BytesMoved), i(r.DemandBytes), i(r.PrefetchBytes), i(r.PrefetchRequests), i(r.PrefetchUseful),
			i(r.PrefetchWasted), f(r.PrefetchUsefulness)}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("writing lab results: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing lab results: %w", err)
	}
	return nil
}
