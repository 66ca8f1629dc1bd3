package sim

import (
	"fmt"
	"html"
	"math"
	"sort"
)

// panelGrid lays out one panel per cell: a row per workload, a column
// per scenario, the legend on the right.
type panelGrid struct {
	c     *canvas
	cells []cell
	cols  int
}

// Panel geometry of the study plots, in px.
const (
	gridLeft, gridTop  = 84.0, 84.0
	panelW, panelH     = 250.0, 170.0
	panelGapX, panelGY = 80.0, 76.0
)

// newGrid starts the canvas of a panel grid over as.
func newGrid(as []Aggregate, title string, items []legendItem) panelGrid {
	cs, cols := cells(as)
	rows := (len(cs) + cols - 1) / cols
	w := gridLeft + float64(cols)*panelW + float64(cols-1)*panelGapX + 30 + legendWidth(items)
	h := gridTop + float64(rows)*panelH + float64(rows-1)*panelGY + 50
	g := panelGrid{c: newCanvas(w, h, title, "one panel per workload and capacity scenario, each axis zoomed to its data"), cells: cs, cols: cols}
	g.c.legend(gridLeft+float64(cols)*panelW+float64(cols-1)*panelGapX+30, gridTop+4, items)
	return g
}

// frame returns the plot area of cell i.
func (g panelGrid) frame(i int) frame {
	r, col := i/g.cols, i%g.cols
	x0 := gridLeft + float64(col)*(panelW+panelGapX)
	y0 := gridTop + float64(r)*(panelH+panelGY)
	return frame{x0: x0, x1: x0 + panelW, y0: y0, y1: y0 + panelH}
}

// showY reports whether cell i's panel carries the y axis label (the
// first column).
func (g panelGrid) showY(i int) bool { return i%g.cols == 0 }

// tradeoffPlot draws mean latency against bytes moved, a point per
// policy, with error bars on both axes.
func tradeoffPlot(as []Aggregate) []byte {
	hiB := 0.0
	for _, a := range as {
		hiB = math.Max(hiB, a.BytesMoved.Mean+a.BytesMoved.Std)
	}
	div, unit := byteUnit(hiB)
	var items []legendItem
	for _, p := range distinct(as, func(a Aggregate) string { fam, _ := policyParams(a.Policy); return fam }) {
		items = append(items, legendItem{legendMarker, familyColor(p), shortPolicy(p)})
	}
	items = append(items, legendItem{kind: legendError, label: seedNote(as) + ", both axes"},
		legendItem{kind: legendNote, label: breakNote},
		legendItem{kind: legendNote, label: "labelled: every policy but regret,"},
		legendItem{kind: legendNote, label: "and regret's fastest (w weight, h horizon)"})
	g := newGrid(as, "Latency against transfer cost: mean access latency vs bytes moved", items)
	for i, cl := range g.cells {
		drawTradeoffPanel(g.c, g.frame(i), cl, div, unit, g.showY(i))
	}
	return g.c.bytes()
}

// drawTradeoffPanel draws one cell of the tradeoff plot.
func drawTradeoffPanel(c *canvas, f frame, cl cell, div float64, unit string, ylabel bool) {
	var bs, ls []Stat
	for _, a := range cl.as {
		bs = append(bs, Stat{a.BytesMoved.Mean / div, a.BytesMoved.Std / div})
		ls = append(ls, a.MeanLatency)
	}
	xlo, xhi := valueRange(bs)
	ylo, yhi := valueRange(ls)
	xs := zoomScale(xlo, xhi, 0, f.x0, f.x1)
	ys := zoomScale(ylo, yhi, 0, f.y1, f.y0)
	c.text((f.x0+f.x1)/2, f.y0-8, "middle", fmt.Sprintf(`font-size="%.0f" class="panel-title"`, fontLabel), cl.name)
	c.yAxis(f, ys, labelIf(ylabel, "mean access latency (ms)"))
	c.xAxis(f, xs, "bytes moved per run ("+unit+")")
	fastest := -1
	for i, a := range cl.as {
		if fam, _ := policyParams(a.Policy); fam == "regret_aware" && (fastest < 0 || ls[i].Mean < ls[fastest].Mean) {
			fastest = i
		}
	}
	var labelled []int
	for i, a := range cl.as {
		x, y := xs.at(bs[i].Mean), ys.at(ls[i].Mean)
		c.errorBar(x, ys.at(math.Max(ys.lo, ls[i].Mean-ls[i].Std)), ys.at(math.Min(ys.hi, ls[i].Mean+ls[i].Std)))
		c.hErrorBar(y, xs.at(math.Max(xs.lo, bs[i].Mean-bs[i].Std)), xs.at(math.Min(xs.hi, bs[i].Mean+bs[i].Std)))
		c.marker(x, y, familyColor(a.Policy), fmt.Sprintf("%s: %.4g ms, %.4g %s", a.Policy, ls[i].Mean, bs[i].Mean, unit))
		if fam, _ := policyParams(a.Policy); fam != "regret_aware" || i == fastest {
			labelled = append(labelled, i)
		}
	}
	labels := labelPlacer{f: f}
	for _, i := range labelled {
		labels.place(c, xs.at(bs[i].Mean), ys.at(ls[i].Mean), compactPolicy(cl.as[i].Policy))
	}
}

// compactPolicy is the shortest label of a policy: "w6h24" for a regret
// variant, else its short name.
func compactPolicy(name string) string {
	fam, ps := policyParams(name)
	w, ok1 := ps["weight"]
	h, ok2 := ps["horizon"]
	if fam == "regret_aware" && ok1 && ok2 && len(ps) == 2 {
		return fmt.Sprintf("w%gh%g", w, h)
	}
	return shortPolicy(name)
}

// failureCell returns the cell whose best regret_aware variant gains
// least over LRU in mean latency (the largest relative excess), and that
// excess; false when no cell has LRU and a regret variant.
func failureCell(as []Aggregate) (cell, float64, bool) {
	cs, _ := cells(as)
	var worst cell
	excess, found := math.Inf(-1), false
	for _, cl := range cs {
		lru, ok := lruOf(cl.as)
		best := math.Inf(1)
		for _, p := range sweepPoints(cl.as, "weight", "horizon") {
			best = math.Min(best, p.a.MeanLatency.Mean)
		}
		if !ok || math.IsInf(best, 1) || lru.MeanLatency.Mean <= 0 {
			continue
		}
		if e := best/lru.MeanLatency.Mean - 1; e > excess {
			worst, excess, found = cl, e, true
		}
	}
	return worst, excess, found
}

// failurePlot draws every policy's latency in regret's worst cell as
// horizontal bars (points on a zoomed axis), fastest first.
func failurePlot(as []Aggregate) ([]byte, bool) {
	cl, excess, ok := failureCell(as)
	if !ok {
		return nil, false
	}
	rows := append([]Aggregate(nil), cl.as...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].MeanLatency.Mean < rows[j].MeanLatency.Mean })
	var ls []Stat
	labelW := 0.0
	for _, a := range rows {
		ls = append(ls, a.MeanLatency)
		labelW = math.Max(labelW, textWidth(shortPolicy(a.Policy), fontTick))
	}
	lo, hi := valueRange(ls)
	items := []legendItem{{legendDotted, "#555555", "LRU (reference)"}, {kind: legendError, label: seedNote(cl.as)}}
	f := frame{x0: labelW + 24, y0: 64, y1: 64 + float64(len(rows))*20}
	f.x1 = f.x0 + 380
	xs := zoomScale(lo, hi, 0, f.x0, f.x1)
	if xs.zoomed {
		items = append(items, legendItem{kind: legendNote, label: breakNote})
	}
	verdict := fmt.Sprintf("best regret variant %+.1f%% vs LRU", 100*excess)
	c := newCanvas(f.x1+30+legendWidth(items), f.y1+60, "Where regret helps least: "+cl.name,
		verdict+"; policies sorted by mean access latency")
	c.xAxis(f, xs, "mean access latency (ms)")
	for i, a := range rows {
		y := f.y0 + (float64(i)+0.5)*20
		c.text(f.x0-6, y+4, "end", `class="ytick"`, shortPolicy(a.Policy))
		drawHValue(c, xs, f, a.MeanLatency, y, familyColor(a.Policy), fmt.Sprintf("%s: %.4g ± %.3g ms", a.Policy, a.MeanLatency.Mean, a.MeanLatency.Std))
	}
	if lru, ok := lruOf(cl.as); ok {
		x := xs.at(lru.MeanLatency.Mean)
		c.line(x, f.y0, x, f.y1, `class="lru-line" stroke="#555555" `+styleDotted)
	}
	c.legend(f.x1+30, f.y0+4, items)
	return c.bytes(), true
}

// drawHValue draws one mean ± std at y: a bar from 0, or a point on a
// zoomed axis.
func drawHValue(c *canvas, s scale, f frame, v Stat, y float64, color, tip string) {
	if math.IsNaN(v.Mean) {
		return // no run measured it: nothing to draw, as drawValue
	}
	if !s.zoomed {
		fmt.Fprintf(&c.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="12" fill="%s"><title>%s</title></rect>`+"\n",
			f.x0, y-6, s.at(v.Mean)-f.x0, color, html.EscapeString(tip))
	}
	c.hErrorBar(y, s.at(math.Max(s.lo, v.Mean-v.Std)), s.at(math.Min(s.hi, v.Mean+v.Std)))
	if s.zoomed {
		c.marker(s.at(v.Mean), y, color, tip)
	}
}
