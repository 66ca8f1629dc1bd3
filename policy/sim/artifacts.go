package sim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// Metadata describes how a set of artifacts was produced.
type Metadata struct {
	Grid      Grid     `json:"grid"`
	Specs     []string `json:"policy_specs"`
	Runs      int      `json:"runs"`
	Version   string   `json:"version"`
	Commit    string   `json:"commit"`
	GoVersion string   `json:"go_version"`
	Workers   int      `json:"workers"`
	// Tiers of each scenario, so every capacity and latency is on record.
	Hierarchies []Hierarchy `json:"hierarchies"`
	Command     string      `json:"command"`
}

// Artifact file names written by WriteArtifacts.
const (
	FileRaw       = "raw.json"
	FileSummary   = "summary.csv"
	FileAggregate = "aggregate.csv"
	FileMetadata  = "metadata.json"
)

// WriteArtifacts writes raw JSON, the per-run CSV, the aggregated CSV, the
// metadata and one SVG plot per workload and measure into dir. It returns
// the files written.
func WriteArtifacts(dir string, meta Metadata, rs []Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating output directory: %w", err)
	}
	meta.Runs = len(rs)
	meta.GoVersion = runtime.Version()
	meta.Specs = meta.Grid.Specs()
	for _, sc := range meta.Grid.Scenarios {
		if h, err := NewHierarchy(meta.Grid.Preset, sc); err == nil {
			meta.Hierarchies = append(meta.Hierarchies, h)
		}
	}
	var files []string
	write := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
		files = append(files, p)
		return nil
	}
	raw, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding results: %w", err)
	}
	md, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding metadata: %w", err)
	}
	aggs := AggregateResults(rs)
	steps := []struct {
		name string
		data []byte
	}{
		{FileRaw, append(raw, '\n')},
		{FileMetadata, append(md, '\n')},
		{FileSummary, summaryCSV(rs)},
		{FileAggregate, aggregateCSV(aggs)},
	}
	for _, s := range steps {
		if err := write(s.name, s.data); err != nil {
			return files, err
		}
	}
	for _, p := range plots(aggs) {
		if err := write(p.name, p.svg); err != nil {
			return files, err
		}
	}
	return files, nil
}

func fmtF(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func csvBytes(rows [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.WriteAll(rows) // writes to memory cannot fail
	return b.Bytes()
}

// ModeLab is the Mode of results from the lab-compatible model (package
// sim/lab), which measures no p99 latency, re-promotion rate or fast-tier
// utilisation: the CSVs leave those fields empty rather than write 0.
const ModeLab = "lab"

// unmeasured returns x, or NaN (an empty CSV field) for a figure mode
// does not measure.
func unmeasured(mode string, x float64) float64 {
	if mode == ModeLab {
		return math.NaN()
	}
	return x
}

func summaryCSV(rs []Result) []byte {
	rows := [][]string{{"workload", "scenario", "quant", "policy", "seed", "accesses", "fast_hit_ratio",
		"misses", "evictions", "bytes_moved_demand", "bytes_moved_prefetch", "mean_latency_ms",
		"p99_latency_ms", "repromotion_rate", "jain_fairness", "fast_utilisation", "lru_hit_ratio",
		"belady_hit_ratio", "headroom_captured"}}
	for _, r := range rs {
		head := math.NaN()
		if r.Headroom != nil {
			head = *r.Headroom
		}
		p99, repromo, util := unmeasured(r.Mode, r.P99LatencyMs), unmeasured(r.Mode, r.RepromotionRate), unmeasured(r.Mode, r.Utilisation)
		rows = append(rows, []string{WorkloadName(r.Workload), r.Scenario, r.Quant, r.Policy,
			strconv.FormatInt(r.Seed, 10), strconv.FormatInt(r.Accesses, 10), fmtF(r.FastHitRatio),
			strconv.FormatInt(r.Misses, 10), strconv.FormatInt(r.Evictions, 10),
			strconv.FormatInt(r.BytesDemand, 10), strconv.FormatInt(r.BytesPrefetch, 10),
			fmtF(r.MeanLatencyMs), fmtF(p99), fmtF(repromo), fmtF(r.Fairness),
			fmtF(util), fmtF(r.LRUHitRatio), fmtF(r.BeladyHitRatio), fmtF(head)})
	}
	return csvBytes(rows)
}

func aggregateCSV(as []Aggregate) []byte {
	rows := [][]string{{"workload", "scenario", "quant", "policy", "runs",
		"mean_latency_ms_mean", "mean_latency_ms_std", "p99_latency_ms_mean", "p99_latency_ms_std",
		"fast_hit_ratio_mean", "fast_hit_ratio_std", "bytes_moved_mean", "bytes_moved_std",
		"repromotion_rate_mean", "repromotion_rate_std", "headroom_captured_mean", "headroom_captured_std"}}
	for _, a := range as {
		p99, repromo := a.P99Latency, a.Repromotion
		if a.Mode == ModeLab {
			p99, repromo = Stat{math.NaN(), math.NaN()}, Stat{math.NaN(), math.NaN()}
		}
		rows = append(rows, []string{a.Workload, a.Scenario, a.Quant, a.Policy, strconv.Itoa(a.Runs),
			fmtF(a.MeanLatency.Mean), fmtF(a.MeanLatency.Std), fmtF(p99.Mean), fmtF(p99.Std),
			fmtF(a.FastHitRatio.Mean), fmtF(a.FastHitRatio.Std), fmtF(a.BytesMoved.Mean), fmtF(a.BytesMoved.Std),
			fmtF(repromo.Mean), fmtF(repromo.Std), fmtF(a.Headroom.Mean), fmtF(a.Headroom.Std)})
	}
	return csvBytes(rows)
}
