package report

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// Geometry of hotshare.svg.
const (
	svgW, svgH             = 1100, 500
	padL, padR, padT, padB = 70, 190, 60, 60
	plotW, plotH           = svgW - padL - padR, svgH - padT - padB
	breakGap               = 2.0 // seconds without samples that break a line
	legendRow              = 22
	svgFont                = "font-family=\"sans-serif\""
)

var palette = map[string]string{"first-touch": "#7f7f7f", "tpp": "#1f77b4", "damos": "#ff7f0e",
	"kvtier-damon": "#2ca02c", "kvtier-auto": "#d62728", "kvtier-hints": "#9467bd"}

var spare = []string{"#8c564b", "#e377c2", "#17becf", "#bcbd22"}

// plotArea maps seconds and shares to the picture.
type plotArea struct{ xmax float64 }

func (p plotArea) x(t float64) float64 { return padL + t/p.xmax*plotW }
func (p plotArea) y(s float64) float64 { return padT + (1-s)*plotH }

// SVG is hotshare.svg: every configuration's share on node 0 of the set it
// reads over time, the phases marked.
func SVG(res *Results) []byte {
	var b bytes.Buffer
	p := plotArea{xmax: niceMax(maxT(res.Runs))}
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" %s font-size=\"12\">\n", svgW, svgH, svgW, svgH, svgFont)
	fmt.Fprintf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", svgW, svgH)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Share on node 0 (DRAM) of the blocks being read, per configuration</text>\n", padL)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"40\" fill=\"#555\">A1/B/A2: hot set A or B; regret: set C; trace: reads from node 0 (last 2 s). Revisits and trace start when each run's cool-off ended.</text>\n",
		padL)
	phaseMarks(&b, p, res.Runs)
	axes(&b, p)
	i := 0
	for _, r := range res.Runs {
		if r.Workload == nil {
			continue
		}
		c := colour(r.Config, i)
		lines(&b, p, r.Workload.Series, c)
		legend(&b, i, r.Config, c)
		i++
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func colour(name string, i int) string {
	if c, ok := palette[name]; ok {
		return c
	}
	return spare[i%len(spare)]
}

func maxT(runs []Run) float64 {
	m := 1.0
	for _, r := range runs {
		if r.Workload != nil && len(r.Workload.Series) > 0 {
			m = max(m, r.Workload.Series[len(r.Workload.Series)-1].T)
		}
	}
	return m
}

// niceMax rounds v up to a multiple of a round tick step.
func niceMax(v float64) float64 {
	step := tickStep(v)
	return math.Ceil(v/step) * step
}

// tickStep is a round step giving 5 to 12 ticks over v.
func tickStep(v float64) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600} {
		if v/s <= 12 {
			return s
		}
	}
	return 1200
}

func axes(b *bytes.Buffer, p plotArea) {
	for s := 0.0; s <= 1.0001; s += 0.2 {
		y := p.y(s)
		fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", padL, y, padL+plotW, y)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", padL-6, y+4, s)
	}
	step := tickStep(p.xmax)
	for t := 0.0; t <= p.xmax+1e-9; t += step {
		x := p.x(t)
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x, padT+plotH, x, padT+plotH+5)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, padT+plotH+18, t)
	}
	fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", padL, padT, plotW, plotH)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the arena was filled (s, emulated: compare within the run)</text>\n", padL+plotW/2, svgH-15)
	fmt.Fprintf(b, "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\">share on node 0 (0-1)</text>\n", padT+plotH/2)
}

// lines draws one configuration's series, broken where samples stop or
// the kind of share changes (hot set, regret set, trace reads).
func lines(b *bytes.Buffer, p plotArea, pts []result.Point, c string) {
	var seg []string
	flush := func() {
		if len(seg) > 1 {
			fmt.Fprintf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" stroke-opacity=\"0.85\" points=\"%s\"/>\n", c, strings.Join(seg, " "))
		}
		seg = seg[:0]
	}
	for i, pt := range pts {
		if i > 0 && (pt.T-pts[i-1].T > breakGap || kind(pt.Phase) != kind(pts[i-1].Phase)) {
			flush()
		}
		seg = append(seg, fmt.Sprintf("%.1f,%.1f", p.x(pt.T), p.y(pt.Share)))
	}
	flush()
}

// kind groups phase labels by what their share measures.
func kind(phase string) string {
	switch {
	case strings.HasPrefix(phase, "R-"):
		return "regret"
	case phase == "trace":
		return "trace"
	}
	return "hot"
}

func legend(b *bytes.Buffer, i int, name, c string) {
	x, y := padL+plotW+20, padT+10+i*legendRow
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>\n", x, y, x+24, y, c)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\">%s</text>\n", x+30, y+4, html.EscapeString(name))
}
