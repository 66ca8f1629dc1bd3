package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// The four plots of kv-hierarchy-lab's regret ablation, drawn from any
// grid's results (kvtier's regret preset and the lab preset alike), one
// panel per workload (rows) and scenario (columns), each axis zoomed to
// its panel's data:
//
//   - latency_vs_horizon.svg: mean latency against regret_aware's horizon,
//     a line per weight, LRU's latency as a reference line;
//   - hit_rate_vs_weight.svg: fast-tier hit ratio against the weight, a
//     line per horizon, LRU's and Bélády's hit ratios as reference lines;
//   - latency_vs_bytes.svg: mean latency against bytes moved, a point per
//     policy;
//   - failure_case.svg: every policy's latency in the cell where the best
//     regret_aware variant gains least over LRU (regret's worst case).

// Study plot file names written by WriteStudyPlots.
const (
	FileLatencyVsHorizon = "latency_vs_horizon.svg"
	FileHitRateVsWeight  = "hit_rate_vs_weight.svg"
	FileLatencyVsBytes   = "latency_vs_bytes.svg"
	FileFailureCase      = "failure_case.svg"
)

// WriteStudyPlots writes the lab's four plot kinds for rs into dir and
// returns the files written. A kind the results have no data for (no
// regret_aware variants with a weight and a horizon, or no LRU row) is
// left out.
func WriteStudyPlots(dir string, rs []Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating plot directory: %w", err)
	}
	var files []string
	for _, p := range studyPlots(AggregateResults(rs)) {
		path := filepath.Join(dir, p.name)
		if err := os.WriteFile(path, p.svg, 0o644); err != nil {
			return files, fmt.Errorf("writing %s: %w", path, err)
		}
		files = append(files, path)
	}
	return files, nil
}

// studyPlots draws the kinds the aggregates have data for.
func studyPlots(as []Aggregate) []plot {
	var out []plot
	if p, ok := sweepPlot(as, "horizon", "weight", latencyMeasure()); ok {
		out = append(out, plot{FileLatencyVsHorizon, p})
	}
	if p, ok := sweepPlot(as, "weight", "horizon", hitMeasure()); ok {
		out = append(out, plot{FileHitRateVsWeight, p})
	}
	if len(as) > 0 {
		out = append(out, plot{FileLatencyVsBytes, tradeoffPlot(as)})
	}
	if p, ok := failurePlot(as); ok {
		out = append(out, plot{FileFailureCase, p})
	}
	return out
}

// measure is a plotted value: its axis label, its value in the label's
// unit, its upper bound (0 none), and whether Bélády's line applies.
type measure struct {
	label  string
	get    func(Aggregate) Stat
	max    float64
	belady bool
}

func latencyMeasure() measure {
	return measure{label: "mean access latency (ms)", get: func(a Aggregate) Stat { return a.MeanLatency }}
}

func hitMeasure() measure {
	return measure{label: "fast-tier hit ratio (%)", max: 100, belady: true,
		get: func(a Aggregate) Stat { return Stat{a.FastHitRatio.Mean * 100, a.FastHitRatio.Std * 100} }}
}

// cell is the aggregates of one workload and scenario (and quantisation).
type cell struct {
	name string
	as   []Aggregate
}

// cells splits aggregates by workload, scenario and quantisation, in
// order of first appearance, with the number of scenario columns.
func cells(as []Aggregate) ([]cell, int) {
	quants := distinct(as, func(a Aggregate) string { return a.Quant })
	key := func(a Aggregate) string {
		k := a.Workload + ", " + a.Scenario
		if len(quants) > 1 {
			k += ", " + a.Quant
		}
		return k
	}
	var out []cell
	idx := map[string]int{}
	for _, a := range as {
		k := key(a)
		if _, ok := idx[k]; !ok {
			idx[k] = len(out)
			out = append(out, cell{name: k})
		}
		out[idx[k]].as = append(out[idx[k]].as, a)
	}
	cols := len(distinct(as, func(a Aggregate) string { return a.Scenario + " " + a.Quant }))
	return out, max(cols, 1)
}

// sweepPoint is one policy with both sweep parameters.
type sweepPoint struct {
	x, line float64
	a       Aggregate
}

// sweepPoints returns the aggregates of policies that have both
// parameters x and line (regret_aware's weight and horizon).
func sweepPoints(as []Aggregate, x, line string) []sweepPoint {
	var out []sweepPoint
	for _, a := range as {
		_, ps := policyParams(a.Policy)
		xv, ok1 := ps[x]
		lv, ok2 := ps[line]
		if ok1 && ok2 {
			out = append(out, sweepPoint{xv, lv, a})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].x < out[j].x })
	return out
}

// lruOf returns a cell's LRU aggregate.
func lruOf(as []Aggregate) (Aggregate, bool) {
	for _, a := range as {
		if a.Policy == RefLRU || a.Policy == "kvtier:"+RefLRU {
			return a, true
		}
	}
	return Aggregate{}, false
}

// lineColors are the colours of the lines of a sweep, by line value.
var lineColors = []string{"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377"}

// sweepPlot draws m against parameter x with a line per value of
// parameter line, a panel per cell, LRU (and Bélády for hit ratios) as
// reference lines; false when no policy has both parameters.
func sweepPlot(as []Aggregate, x, line string, m measure) ([]byte, bool) {
	pts := sweepPoints(as, x, line)
	if len(pts) == 0 {
		return nil, false
	}
	var lines []float64
	seen := map[float64]bool{}
	for _, p := range pts {
		if !seen[p.line] {
			seen[p.line] = true
			lines = append(lines, p.line)
		}
	}
	sort.Float64s(lines)
	var items []legendItem
	for i, l := range lines {
		items = append(items, legendItem{legendLine, lineColors[i%len(lineColors)], "regret " + line + " " + strconv.FormatFloat(l, 'g', 4, 64)})
	}
	items = append(items, legendItem{legendDotted, "#555555", "LRU (reference)"})
	if m.belady {
		items = append(items, legendItem{legendDashed, "black", beladyLabel(as)})
	}
	items = append(items, legendItem{kind: legendError, label: seedNote(as)},
		legendItem{kind: legendNote, label: breakNote})
	title := fmt.Sprintf("regret_aware: %s vs %s, a line per %s", m.label, x, line)
	g := newGrid(as, title, items)
	for i, cl := range g.cells {
		f := g.frame(i)
		drawSweepPanel(g.c, f, cl, x, line, lines, m, g.showY(i))
	}
	return g.c.bytes(), true
}

// beladyLabel names the Bélády line: in the lab model it is tier 0's
// Bélády (furthest next use in tier 0, the lab's lru below, no prefetch).
func beladyLabel(as []Aggregate) string {
	if len(as) > 0 && as[0].Mode == ModeLab {
		return "Bélády (tier 0: furthest next use; no prefetch)"
	}
	return "Bélády (offline optimum)"
}

// drawSweepPanel draws one cell of a sweep plot.
func drawSweepPanel(c *canvas, f frame, cl cell, x, line string, lines []float64, m measure, ylabel bool) {
	pts := sweepPoints(cl.as, x, line)
	var stats []Stat
	var xs []float64
	for _, p := range pts {
		stats = append(stats, m.get(p.a))
		xs = appendUnique(xs, p.x)
	}
	var refs []Stat
	lru, hasLRU := lruOf(cl.as)
	if hasLRU {
		refs = append(refs, m.get(lru))
	}
	if m.belady && len(cl.as) > 0 && !math.IsNaN(cl.as[0].Belady.Mean) {
		refs = append(refs, Stat{Mean: cl.as[0].Belady.Mean * 100})
	}
	lo, hi := valueRange(stats, refs)
	ys := zoomScale(lo, hi, m.max, f.y1, f.y0)
	xsc := sweepScale(xs, f)
	c.text((f.x0+f.x1)/2, f.y0-8, "middle", fmt.Sprintf(`font-size="%.0f" class="panel-title"`, fontLabel), cl.name)
	c.yAxis(f, ys, labelIf(ylabel, m.label))
	c.xAxis(f, xsc, xAxisLabel(x, xsc.log))
	if hasLRU {
		y := ys.at(m.get(lru).Mean)
		c.line(f.x0, y, f.x1, y, `class="lru-line" stroke="#555555" `+styleDotted)
	}
	if len(refs) == 2 {
		y := ys.at(refs[1].Mean)
		c.line(f.x0, y, f.x1, y, `class="belady" stroke="black" `+styleDashed)
	}
	for li, l := range lines {
		drawSweepLine(c, pts, l, xsc, ys, m, lineColors[li%len(lineColors)])
	}
}

// drawSweepLine draws the points of line value l joined by a polyline.
func drawSweepLine(c *canvas, pts []sweepPoint, l float64, xs, ys scale, m measure, color string) {
	var path string
	for _, p := range pts {
		if p.line != l {
			continue
		}
		v := m.get(p.a)
		px, py := xs.at(p.x), ys.at(v.Mean)
		if path == "" {
			path = fmt.Sprintf("M%.1f %.1f", px, py)
		} else {
			path += fmt.Sprintf("L%.1f %.1f", px, py)
		}
	}
	fmt.Fprintf(&c.b, `<path class="sweep-line" d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", path, color)
	for _, p := range pts {
		if p.line == l {
			v := m.get(p.a)
			c.errorBar(xs.at(p.x), ys.at(math.Max(ys.lo, v.Mean-v.Std)), ys.at(math.Min(ys.hi, v.Mean+v.Std)))
			c.marker(xs.at(p.x), ys.at(v.Mean), color, fmt.Sprintf("%s: %.4g ± %.3g", p.a.Policy, v.Mean, v.Std))
		}
	}
}

// sweepScale is the x scale of a parameter sweep: log when its values
// span a factor of 4 or more, with a tick at each value.
func sweepScale(xs []float64, f frame) scale {
	sort.Float64s(xs)
	lo, hi := xs[0], xs[len(xs)-1]
	if lo > 0 && hi/lo >= 4 {
		return logScale(lo, hi, f.x0, f.x1, xs)
	}
	s := zoomScale(lo, hi, 0, f.x0, f.x1)
	s.zoomed = false // a parameter, not a measure: 0 is no reference
	return s
}

func xAxisLabel(param string, log bool) string {
	unit := map[string]string{"horizon": "regret horizon (accesses)", "weight": "regret weight"}[param]
	if unit == "" {
		unit = param
	}
	if log {
		unit += ", log scale"
	}
	return unit
}

func labelIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

func appendUnique(xs []float64, x float64) []float64 {
	for _, v := range xs {
		if v == x {
			return xs
		}
	}
	return append(xs, x)
}
