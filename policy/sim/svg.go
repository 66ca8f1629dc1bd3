package sim

import (
	"fmt"
	"html"
	"math"
)

type plot struct {
	name string
	svg  []byte
}

// plotMeasure is a measure plotted for every workload: its file suffix,
// title, axis label (a unit, for a factor that unit gives), value, and
// whether Bélády's line applies.
type plotMeasure struct {
	file, title string
	axis        func(as []Aggregate) (label string, factor, max float64)
	get         func(a Aggregate) Stat
	belady      bool
}

var plotMeasures = []plotMeasure{
	{"latency", "mean access latency",
		func([]Aggregate) (string, float64, float64) { return "mean access latency (ms)", 1, 0 },
		func(a Aggregate) Stat { return a.MeanLatency }, false},
	{"hit_ratio", "fast-tier hit ratio",
		func([]Aggregate) (string, float64, float64) { return "fast-tier (tier 0) hit ratio (%)", 100, 100 },
		func(a Aggregate) Stat { return a.FastHitRatio }, true},
	{"bytes", "bytes moved between tiers", bytesAxis,
		func(a Aggregate) Stat { return a.BytesMoved }, false},
}

// bytesAxis labels bytes moved in the binary unit that suits the largest.
func bytesAxis(as []Aggregate) (string, float64, float64) {
	hi := 0.0
	for _, a := range as {
		hi = math.Max(hi, a.BytesMoved.Mean+a.BytesMoved.Std)
	}
	div, unit := byteUnit(hi)
	return "bytes moved per run (" + unit + ")", 1 / div, 0
}

var palette = []string{"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"}

// groupedData is one chart of a measure: a panel per series (capacity
// scenario), each with its own axis zoomed to its data, a value per group
// (policy) in each, and optionally a reference per series (Bélády).
type groupedData struct {
	title, subtitle, ylabel string
	groups, full, series    []string // full: the groups' full names, in tooltips
	vals                    [][]Stat // [series][group], NaN mean: none
	refs                    []Stat   // [series] Bélády, nil: none
	lru                     int      // the group of LRU, -1 none
	note                    string   // the error bars' meaning
	max                     float64  // the measure's upper bound, 0 none
}

// plots draws, for each workload and measure, a panel per scenario (and
// quantisation) with a point or bar per policy, error bars of one standard
// deviation over seeds, LRU's value as a dotted line and, on hit-ratio
// plots, Bélády's as a dashed one.
func plots(as []Aggregate) []plot {
	var out []plot
	quants := distinct(as, func(a Aggregate) string { return a.Quant })
	seriesOf := func(a Aggregate) string {
		if len(quants) > 1 {
			return a.Scenario + " " + a.Quant
		}
		return a.Scenario
	}
	for _, w := range distinct(as, func(a Aggregate) string { return a.Workload }) {
		var cell []Aggregate
		for _, a := range as {
			if a.Workload == w {
				cell = append(cell, a)
			}
		}
		for _, m := range plotMeasures {
			d := groupedFor(cell, m, seriesOf)
			d.title = w + ": " + m.title
			d.subtitle = "one panel per capacity scenario, each axis zoomed to its data"
			if len(quants) == 1 {
				d.subtitle = "quantisation " + quants[0] + "; " + d.subtitle
			}
			out = append(out, plot{name: w + "_" + m.file + ".svg", svg: groupedChart(d)})
		}
	}
	return out
}

// groupedFor collects one workload's aggregates for a measure.
func groupedFor(cell []Aggregate, m plotMeasure, seriesOf func(Aggregate) string) groupedData {
	label, factor, max := m.axis(cell)
	d := groupedData{ylabel: label, note: seedNote(cell), max: max, lru: -1}
	d.full = distinct(cell, func(a Aggregate) string { return a.Policy })
	d.series = distinct(cell, seriesOf)
	gi, si := index(d.full), index(d.series)
	for i, g := range d.full {
		d.groups = append(d.groups, shortPolicy(g))
		if g == RefLRU {
			d.lru = i
		}
	}
	d.vals = make([][]Stat, len(d.series))
	for i := range d.vals {
		d.vals[i] = make([]Stat, len(d.full))
		for j := range d.vals[i] {
			d.vals[i][j] = Stat{Mean: math.NaN()}
		}
	}
	bel := make([]Stat, len(d.series))
	have := 0
	for i := range bel {
		bel[i] = Stat{Mean: math.NaN()}
	}
	for _, a := range cell {
		v, s := m.get(a), si[seriesOf(a)]
		d.vals[s][gi[a.Policy]] = Stat{Mean: v.Mean * factor, Std: v.Std * factor}
		if m.belady && !math.IsNaN(a.Belady.Mean) && math.IsNaN(bel[s].Mean) {
			// Every policy of a series ran on the same traces: one value.
			bel[s] = Stat{Mean: a.Belady.Mean * factor, Std: a.Belady.Std * factor}
			have++
		}
	}
	if have > 0 {
		d.refs = bel
	}
	return d
}

// index maps each name to its position.
func index(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// valueRange returns the smallest and largest of mean - std and mean + std
// over stats (NaN means skipped).
func valueRange(stats ...[]Stat) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, ss := range stats {
		for _, v := range ss {
			if !math.IsNaN(v.Mean) {
				lo, hi = math.Min(lo, v.Mean-v.Std), math.Max(hi, v.Mean+v.Std)
			}
		}
	}
	return lo, hi
}

// familyColor is the colour of a policy's points: by family, so that the
// variants of one policy read as one.
func familyColor(name string) string {
	fam, _ := policyParams(name)
	switch fam {
	case "lru":
		return "#555555"
	case "cost_aware":
		return "#ee7733"
	case "regret_aware":
		return "#4477aa"
	case "belady":
		return "#000000"
	}
	return palette[len(fam)%len(palette)]
}

// groupedChart renders the panels of d side by side as a standalone SVG:
// bars when a panel's axis starts at 0, points when it is zoomed to the
// data (a bar's length would mislead), error bars of one standard
// deviation, references as lines, and a legend that says what error bars,
// lines and axis breaks mean.
func groupedChart(d groupedData) []byte {
	const left, top, plotH, slot, between = 84.0, 76.0, 240.0, 26.0, 70.0
	labelW := 0.0
	for _, g := range d.groups {
		labelW = math.Max(labelW, textWidth(g, fontTick))
	}
	panelW := math.Max(float64(len(d.groups))*slot+10, 160)
	scales := make([]scale, len(d.series))
	zoomed := false
	for i := range d.series {
		var refs []Stat
		if d.refs != nil {
			refs = d.refs[i : i+1]
		}
		lo, hi := valueRange(d.vals[i], refs)
		scales[i] = zoomScale(lo, hi, d.max, top+plotH, top)
		zoomed = zoomed || scales[i].zoomed
	}
	items := groupedLegend(d, zoomed)
	panelsW := float64(len(d.series))*panelW + float64(len(d.series)-1)*between
	width := left + panelsW + 24 + legendWidth(items)
	c := newCanvas(width, top+plotH+labelW*0.65+40, d.title, d.subtitle)
	for i := range d.series {
		x0 := left + float64(i)*(panelW+between)
		f := frame{x0: x0, x1: x0 + panelW, y0: top, y1: top + plotH}
		label := ""
		if i == 0 {
			label = d.ylabel
		}
		drawPanel(c, d, i, f, scales[i], label)
	}
	c.legend(left+panelsW+24, top+4, items)
	return c.bytes()
}

// drawPanel draws series i of d in frame f on scale s.
func drawPanel(c *canvas, d groupedData, i int, f frame, s scale, ylabel string) {
	c.text((f.x0+f.x1)/2, f.y0-10, "middle", fmt.Sprintf(`font-size="%.0f" class="panel-title"`, fontLabel), d.series[i])
	c.yAxis(f, s, ylabel)
	slot := (f.x1 - f.x0 - 10) / float64(len(d.groups))
	for gi, g := range d.groups {
		cx := f.x0 + 5 + (float64(gi)+0.5)*slot
		drawValue(c, s, f, d.vals[i][gi], cx, familyColor(d.full[gi]),
			fmt.Sprintf("%s, %s: %.4g ± %.3g", d.full[gi], d.series[i], d.vals[i][gi].Mean, d.vals[i][gi].Std))
		ly := f.y1 + 12
		c.text(cx+3, ly, "end", fmt.Sprintf(`class="xtick" transform="rotate(-40 %.1f %.1f)"`, cx+3, ly), g)
	}
	if d.lru >= 0 && !math.IsNaN(d.vals[i][d.lru].Mean) {
		y := s.at(d.vals[i][d.lru].Mean)
		c.line(f.x0, y, f.x1, y, `class="lru-line" stroke="#555555" `+styleDotted)
	}
	if d.refs != nil && !math.IsNaN(d.refs[i].Mean) {
		y := s.at(d.refs[i].Mean)
		fmt.Fprintf(&c.b, `<line class="belady" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black" %s><title>Bélády, %s: %.4g</title></line>`+"\n",
			f.x0, y, f.x1, y, styleDashed, html.EscapeString(d.series[i]), d.refs[i].Mean)
	}
}

// drawValue draws one mean ± std at x: a bar from 0, or a point on a
// zoomed axis.
func drawValue(c *canvas, s scale, f frame, v Stat, x float64, color, tip string) {
	if math.IsNaN(v.Mean) {
		return
	}
	if s.zoomed {
		c.errorBar(x, s.at(math.Max(s.lo, v.Mean-v.Std)), s.at(math.Min(s.hi, v.Mean+v.Std)))
		c.marker(x, s.at(v.Mean), color, tip)
		return
	}
	fmt.Fprintf(&c.b, `<rect class="bar" x="%.1f" y="%.1f" width="12" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
		x-6, s.at(v.Mean), f.y1-s.at(v.Mean), color, html.EscapeString(tip))
	c.errorBar(x, s.at(math.Max(0, v.Mean-v.Std)), s.at(math.Min(s.hi, v.Mean+v.Std)))
}

// groupedLegend lists the policy families, the reference lines and what
// the error bars and a broken axis mean.
func groupedLegend(d groupedData, zoomed bool) []legendItem {
	kind := legendSwatch
	if zoomed {
		kind = legendMarker
	}
	var items []legendItem
	seen := map[string]bool{}
	for _, g := range d.full {
		fam, _ := policyParams(g)
		if !seen[fam] {
			seen[fam] = true
			items = append(items, legendItem{kind, familyColor(g), shortPolicy(fam)})
		}
	}
	if d.lru >= 0 {
		items = append(items, legendItem{legendDotted, "#555555", "LRU's value (reference)"})
	}
	if d.refs != nil {
		items = append(items, legendItem{legendDashed, "black", "Bélády (offline optimum)"})
	}
	items = append(items, legendItem{kind: legendError, label: d.note})
	if zoomed {
		items = append(items, legendItem{kind: legendNote, label: breakNote})
	}
	return items
}
