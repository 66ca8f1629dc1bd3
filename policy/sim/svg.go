package sim

import (
	"bytes"
	"fmt"
	"html"
	"math"
)

type plot struct {
	name string
	svg  []byte
}

// measures plotted for every workload.
var plotMeasures = []struct {
	file, title string
	get         func(a Aggregate) Stat
}{
	{"latency", "mean access latency (ms)", func(a Aggregate) Stat { return a.MeanLatency }},
	{"hit_ratio", "fast-tier hit ratio", func(a Aggregate) Stat { return a.FastHitRatio }},
	{"bytes", "bytes moved", func(a Aggregate) Stat { return a.BytesMoved }},
}

var palette = []string{"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"}

// plots draws, for each workload and measure, grouped bars (one group per
// policy, one bar per scenario and quantisation) with error bars of one
// standard deviation.
func plots(as []Aggregate) []plot {
	var wls []string
	seen := map[string]bool{}
	for _, a := range as {
		if !seen[a.Workload] {
			seen[a.Workload] = true
			wls = append(wls, a.Workload)
		}
	}
	var out []plot
	for _, w := range wls {
		var groups, series []string
		gi, si := map[string]int{}, map[string]int{}
		for _, a := range as {
			if a.Workload != w {
				continue
			}
			if _, ok := gi[a.Policy]; !ok {
				gi[a.Policy] = len(groups)
				groups = append(groups, a.Policy)
			}
			s := a.Scenario + " " + a.Quant
			if _, ok := si[s]; !ok {
				si[s] = len(series)
				series = append(series, s)
			}
		}
		for _, m := range plotMeasures {
			vals := make([][]Stat, len(groups))
			for i := range vals {
				vals[i] = make([]Stat, len(series))
				for j := range vals[i] {
					vals[i][j] = Stat{Mean: math.NaN()}
				}
			}
			for _, a := range as {
				if a.Workload == w {
					vals[gi[a.Policy]][si[a.Scenario+" "+a.Quant]] = m.get(a)
				}
			}
			out = append(out, plot{name: w + "_" + m.file + ".svg",
				svg: barChart(w+": "+m.title, groups, series, vals)})
		}
	}
	return out
}

// barChart renders grouped bars with error bars as a standalone SVG.
func barChart(title string, groups, series []string, vals [][]Stat) []byte {
	const (
		left, top, bottom, plotH = 70.0, 40.0, 170.0, 260.0
		barW, gap                = 12.0, 14.0
	)
	groupW := float64(len(series))*barW + gap
	width := math.Max(480, left+float64(len(groups))*groupW+150)
	height := top + plotH + bottom
	ymax := 0.0
	for _, g := range vals {
		for _, v := range g {
			if !math.IsNaN(v.Mean) {
				ymax = math.Max(ymax, v.Mean+v.Std)
			}
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	ymax = niceCeil(ymax * 1.05)
	y := func(v float64) float64 { return top + plotH - v/ymax*plotH }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="14" text-anchor="middle">%s</text>`+"\n", width/2, html.EscapeString(title))
	for i := 0; i <= 5; i++ {
		v := ymax * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, left+float64(len(groups))*groupW, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, fmtTick(v))
	}
	for gi, g := range groups {
		x0 := left + float64(gi)*groupW + gap/2
		for si := range series {
			v := vals[gi][si]
			if math.IsNaN(v.Mean) {
				continue
			}
			x := x0 + float64(si)*barW
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s ± %s</title></rect>`+"\n",
				x, y(v.Mean), barW-1, top+plotH-y(v.Mean), palette[si%len(palette)],
				html.EscapeString(g), html.EscapeString(series[si]), fmtTick(v.Mean), fmtTick(v.Std))
			if v.Std > 0 {
				cx := x + (barW-1)/2
				fmt.Fprintf(&b, `<path d="M%.1f %.1fV%.1fM%.1f %.1fh6M%.1f %.1fh6" stroke="black"/>`+"\n",
					cx, y(v.Mean+v.Std), y(math.Max(0, v.Mean-v.Std)), cx-3, y(v.Mean+v.Std), cx-3, y(math.Max(0, v.Mean-v.Std)))
			}
		}
		lx := x0 + float64(len(series))*barW/2
		fmt.Fprintf(&b, `<text transform="translate(%.1f %.0f) rotate(-40)" text-anchor="end">%s</text>`+"\n",
			lx, top+plotH+14, html.EscapeString(g))
	}
	for si, s := range series {
		lx, ly := width-140, top+float64(si)*16
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			lx, ly, palette[si%len(palette)], lx+14, ly+9, html.EscapeString(s))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func fmtTick(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case math.Abs(v) >= 1e3:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.3g", v)
}
