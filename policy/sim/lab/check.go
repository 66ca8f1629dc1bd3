package lab

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// LatencyTolerance is the relative difference in mean latency within
// which a run counts as reproduced (1%). Accesses, misses (so the hit
// ratio), bytes moved and evictions must be equal, and so must the
// prefetch figures when the file has them.
const LatencyTolerance = 0.01

// Mismatch is a published run the results do not reproduce.
type Mismatch struct {
	Want    Figure
	Got     *Result // nil when no result has the figure's seed, scenario, workload and policy
	Reasons []string
}

// Report compares results with published figures.
type Report struct {
	Figures int `json:"figures"`
	Matched int `json:"matched"`
	// Exact counts matches whose mean latency is also equal to within
	// 1e-9 relative (the same sums, up to float formatting).
	Exact         int        `json:"exact"`
	MaxLatencyRel float64    `json:"max_latency_rel_diff"`
	Mismatches    []Mismatch `json:"mismatches,omitempty"`
}

type runKey struct {
	seed                       int64
	scenario, workload, policy string
}

// Check compares every figure with the result of the same seed, scenario,
// workload and policy.
func Check(rs []Result, figs []Figure) Report {
	byKey := map[runKey]*Result{}
	for i := range rs {
		r := &rs[i]
		byKey[runKey{r.Seed, r.Scenario, r.Workload, r.Policy}] = r
	}
	rep := Report{Figures: len(figs)}
	for _, f := range figs {
		r := byKey[runKey{f.Seed, f.Scenario, f.Workload, f.Policy}]
		if r == nil {
			rep.Mismatches = append(rep.Mismatches, Mismatch{Want: f, Reasons: []string{"no such run"}})
			continue
		}
		rel := relDiff(r.MeanLatencyMs, f.MeanLatencyMs)
		rep.MaxLatencyRel = math.Max(rep.MaxLatencyRel, rel)
		if why := compare(*r, f, rel); len(why) > 0 {
			rep.Mismatches = append(rep.Mismatches, Mismatch{Want: f, Got: r, Reasons: why})
			continue
		}
		rep.Matched++
		if rel <= 1e-9 {
			rep.Exact++
		}
	}
	return rep
}

func compare(r Result, f Figure, rel float64) []string {
	var why []string
	ints := []struct {
		name      string
		got, want int64
	}{
		{"accesses", r.Accesses, f.Accesses}, {"miss_count", r.Misses, f.Misses},
		{"bytes_moved", r.BytesMoved, f.BytesMoved}, {"eviction_count", r.Evictions, f.Evictions},
		{"prefetch_bytes_moved", r.PrefetchBytes, f.PrefetchBytes},
		{"prefetch_requests", r.PrefetchRequests, f.PrefetchRequests},
		{"useful_prefetches", r.PrefetchUseful, f.PrefetchUseful},
		{"wasted_prefetches", r.PrefetchWasted, f.PrefetchWasted},
	}
	for _, c := range ints {
		if c.want >= 0 && c.got != c.want {
			why = append(why, fmt.Sprintf("%s %d, lab %d", c.name, c.got, c.want))
		}
	}
	if rel > LatencyTolerance {
		why = append(why, fmt.Sprintf("avg_latency_ms %.6g, lab %.6g (%+.2f%%)", r.MeanLatencyMs, f.MeanLatencyMs,
			100*(r.MeanLatencyMs-f.MeanLatencyMs)/f.MeanLatencyMs))
	}
	return why
}

func relDiff(got, want float64) float64 {
	if got == want {
		return 0
	}
	return math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
}

// Write prints the report: a summary line, then one line per mismatch.
func (rep Report) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%d of %d published runs reproduced (hit ratio, bytes moved and evictions equal, "+
		"mean latency within %g%%); %d of them to within 1e-9; largest latency difference %.3g%%\n",
		rep.Matched, rep.Figures, 100*LatencyTolerance, rep.Exact, 100*rep.MaxLatencyRel)
	for _, m := range rep.Mismatches {
		if err != nil {
			return err
		}
		f := m.Want
		_, err = fmt.Fprintf(w, "  seed %d %s %s %s: %s\n", f.Seed, f.Scenario, f.Workload, f.Policy,
			strings.Join(m.Reasons, "; "))
	}
	return err
}
