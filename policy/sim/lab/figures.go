package lab

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// ErrBadFigures is returned for a figures file that cannot be read.
var ErrBadFigures = errors.New("bad figures file")

// Figure is one run as the lab published it.
type Figure struct {
	Seed          int64
	Scenario      string
	Workload      string
	Policy        string // the lab's name (regret_aware_w6.0_h24)
	Accesses      int64
	Misses        int64
	Evictions     int64 // -1 when the file has no eviction_count
	BytesMoved    int64
	MeanLatencyMs float64
	// The prefetch figures (the lab's prefetch_bytes_moved,
	// prefetch_requests, useful_prefetches, wasted_prefetches), -1 when
	// the file has no such column.
	PrefetchBytes, PrefetchRequests, PrefetchUseful, PrefetchWasted int64
}

// figureColumns are the columns ReadFigures needs; seed and eviction_count
// are optional.
var figureColumns = []string{"scenario", "workload", "policy", "accesses", "miss_count", "avg_latency_ms", "bytes_moved"}

// ReadFigures reads published runs from CSV with a header naming at least
// scenario, workload, policy, accesses, miss_count, avg_latency_ms and
// bytes_moved: the lab's own artifacts/regret_ablation/summary.csv or a
// file with those columns (such as testdata/regret_ablation.csv). Other
// columns are ignored. Without a seed column the rows must be the grid's
// runs in the grid's order (as the lab writes them), and each row's seed
// follows from its position.
func ReadFigures(r io.Reader, g Grid) ([]Figure, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFigures, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrBadFigures)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, c := range figureColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%w: no column %q", ErrBadFigures, c)
		}
	}
	rows = rows[1:]
	_, hasSeed := col["seed"]
	perSeed := 0
	if !hasSeed {
		if len(g.Seeds) == 0 || len(rows) != g.runs() {
			return nil, fmt.Errorf("%w: no seed column, and %d rows are not the grid's %d runs in order",
				ErrBadFigures, len(rows), g.runs())
		}
		perSeed = len(rows) / len(g.Seeds)
	}
	out := make([]Figure, 0, len(rows))
	for i, row := range rows {
		f, err := parseFigure(row, col)
		if err != nil {
			return nil, fmt.Errorf("%w: row %d: %w", ErrBadFigures, i+2, err)
		}
		if !hasSeed {
			f.Seed = g.Seeds[i/perSeed]
		}
		out = append(out, f)
	}
	return out, nil
}

func parseFigure(row []string, col map[string]int) (Figure, error) {
	get := func(name string) (string, bool) {
		i, ok := col[name]
		if !ok || i >= len(row) {
			return "", false
		}
		return row[i], true
	}
	var errs []error
	num := func(name string) int64 {
		s, _ := get(name)
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer >= 0", name, s))
		}
		return v
	}
	var f Figure
	f.Scenario, _ = get("scenario")
	f.Workload, _ = get("workload")
	f.Policy, _ = get("policy")
	f.Accesses, f.Misses, f.BytesMoved = num("accesses"), num("miss_count"), num("bytes_moved")
	if _, ok := get("seed"); ok {
		f.Seed = num("seed")
	}
	opt := func(name string) int64 {
		if _, ok := get(name); ok {
			return num(name)
		}
		return -1
	}
	f.Evictions = opt("eviction_count")
	f.PrefetchBytes, f.PrefetchRequests = opt("prefetch_bytes_moved"), opt("prefetch_requests")
	f.PrefetchUseful, f.PrefetchWasted = opt("useful_prefetches"), opt("wasted_prefetches")
	s, _ := get("avg_latency_ms")
	lat, err := strconv.ParseFloat(s, 64)
	if err != nil || lat < 0 || math.IsInf(lat, 0) || math.IsNaN(lat) {
		errs = append(errs, fmt.Errorf("avg_latency_ms=%q: want a finite number >= 0", s))
	}
	f.MeanLatencyMs = lat
	return f, errors.Join(errs...)
}

func (g Grid) runs() int {
	return len(g.Seeds) * len(g.Scenarios) * len(g.Quants) * len(g.Workloads) * len(g.Policies)
}
