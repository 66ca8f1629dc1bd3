package sim

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"unicode/utf8"
)

// This file holds the drawing primitives of the SVG plots: a canvas,
// numeric scales that zoom to the data, axes with labels and units, a
// break mark on an axis that does not start at 0, and legends.

// Font sizes of the plots, in px.
const (
	fontTitle = 14.0
	fontLabel = 12.0
	fontTick  = 11.0
	fontSmall = 10.0
)

// canvas accumulates one standalone SVG document.
type canvas struct {
	b    bytes.Buffer
	w, h float64
}

// newCanvas starts a w x h document with a white background, a title and
// an optional subtitle under it.
func newCanvas(w, h float64, title, subtitle string) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="%.0f">`+"\n",
		w, h, w, h, fontTick)
	c.b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	c.text(w/2, 22, "middle", fmt.Sprintf(`font-size="%.0f" font-weight="bold" class="title"`, fontTitle), title)
	if subtitle != "" {
		c.text(w/2, 40, "middle", fmt.Sprintf(`font-size="%.0f" fill="#444" class="subtitle"`, fontSmall), subtitle)
	}
	return c
}

// text writes s at (x, y) with the given anchor and extra attributes.
func (c *canvas) text(x, y float64, anchor, extra, s string) {
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="%s" %s>%s</text>`+"\n", x, y, anchor, extra, html.EscapeString(s))
}

// line draws a straight line with extra attributes (stroke and so on).
func (c *canvas) line(x1, y1, x2, y2 float64, extra string) {
	fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" %s/>`+"\n", x1, y1, x2, y2, extra)
}

// bytes closes the document and returns it.
func (c *canvas) bytes() []byte {
	c.b.WriteString("</svg>\n")
	return c.b.Bytes()
}

// textWidth estimates the width of s in px at font size size: sans-serif
// glyphs average a little over half the font size.
func textWidth(s string, size float64) float64 {
	return 0.6 * size * float64(utf8.RuneCountInString(s))
}

// scale maps data values to pixels along one axis.
type scale struct {
	lo, hi float64   // the data range shown
	p0, p1 float64   // pixels of lo and hi
	ticks  []float64 // tick values, within [lo, hi]
	dec    int       // decimals of the tick labels
	zoomed bool      // a non-negative measure whose axis does not start at 0
	log    bool      // log10 axis (lo > 0)
}

// at returns the pixel of v.
func (s scale) at(v float64) float64 {
	if s.log {
		return s.p0 + (math.Log(v)-math.Log(s.lo))/(math.Log(s.hi)-math.Log(s.lo))*(s.p1-s.p0)
	}
	return s.p0 + (v-s.lo)/(s.hi-s.lo)*(s.p1-s.p0)
}

// tick formats a tick value.
func (s scale) tick(v float64) string {
	return strconv.FormatFloat(v, 'f', s.dec, 64)
}

// zoomScale returns a linear scale over data spanning [lo, hi] (a
// non-negative measure: means, error bars and reference lines), limited
// to at most max when max > 0 (100 for a percentage). It starts at 0 when
// the data's low end is within a quarter of the high end from 0, and
// otherwise zooms to the data with a margin, marking the scale zoomed.
func zoomScale(lo, hi, max, p0, p1 float64) scale {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi <= 0 {
		lo, hi = 0, 1
	}
	lo = math.Max(lo, 0)
	dataHi := hi
	if hi-lo < 1e-12*math.Max(1, hi) {
		pad := math.Max(hi*0.05, 1e-9)
		lo, hi = math.Max(0, lo-pad), hi+pad
	}
	if lo <= hi/4 {
		lo = 0
	} else {
		pad := (hi - lo) * 0.1
		lo, hi = math.Max(0, lo-pad), hi+pad
	}
	step := niceStep((hi - lo) / 5)
	s := scale{lo: math.Floor(lo/step+1e-9) * step, hi: math.Ceil(hi/step-1e-9) * step, p0: p0, p1: p1}
	if max > 0 && s.hi > max && dataHi <= max*(1+1e-9) {
		s.hi = max
	}
	s.zoomed = s.lo > 0
	s.dec = decimals(step)
	for v := s.lo; v <= s.hi+step*1e-6; v += step {
		s.ticks = append(s.ticks, math.Round(v/step)*step)
	}
	return s
}

// logScale returns a log10 scale over positive data in [lo, hi] with a
// tick at every value of at.
func logScale(lo, hi, p0, p1 float64, at []float64) scale {
	pad := math.Pow(hi/lo, 0.08)
	s := scale{lo: lo / pad, hi: hi * pad, p0: p0, p1: p1, ticks: at, log: true}
	for _, v := range at {
		s.dec = max(s.dec, decimals(v))
	}
	return s
}

// niceStep rounds a tick step up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// decimals is the number of decimals that shows v (a tick step or value)
// exactly, up to 6.
func decimals(v float64) int {
	for d := 0; d < 6; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(v*p-math.Round(v*p)) < 1e-6*math.Max(1, math.Abs(v*p)) {
			return d
		}
	}
	return 6
}
