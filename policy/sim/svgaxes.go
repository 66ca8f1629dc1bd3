package sim

import (
	"fmt"
	"html"
	"math"
)

// frame is one plot area in pixels: x0 to x1 left to right, y0 (top) to
// y1 (bottom).
type frame struct {
	x0, x1, y0, y1 float64
}

// Line styles of the plots.
const (
	styleAxis   = `stroke="#333" stroke-width="1"`
	styleGrid   = `stroke="#e3e3e3" stroke-width="1"`
	styleDashed = `stroke-dasharray="6 4" stroke-width="1.5"`
	styleDotted = `stroke-dasharray="2 3" stroke-width="1.5"`
)

// breakNote explains the break mark drawn on axes that do not start at 0.
const breakNote = "// on an axis: it does not start at 0"

// yAxis draws the frame's left and bottom lines, horizontal grid lines
// and tick labels of the value scale s, the axis label (rotated) and, when
// s does not start at 0, a break mark at its foot.
func (c *canvas) yAxis(f frame, s scale, label string) {
	for _, v := range s.ticks {
		y := s.at(v)
		c.line(f.x0, y, f.x1, y, styleGrid)
		c.text(f.x0-6, y+4, "end", `class="ytick"`, s.tick(v))
	}
	c.line(f.x0, f.y0, f.x0, f.y1, styleAxis)
	c.line(f.x0, f.y1, f.x1, f.y1, styleAxis)
	w := 0.0
	for _, v := range s.ticks {
		w = math.Max(w, textWidth(s.tick(v), fontTick))
	}
	x, y := f.x0-w-16, (f.y0+f.y1)/2
	if label != "" {
		c.text(x, y, "middle", fmt.Sprintf(`font-size="%.0f" class="ylabel" transform="rotate(-90 %.1f %.1f)"`, fontLabel, x, y), label)
	}
	if s.zoomed {
		c.breakMark(f.x0, f.y1-8, false)
	}
}

// xAxis draws vertical grid lines, tick labels of the value scale s under
// the frame, the axis label and, when s does not start at 0, a break mark.
func (c *canvas) xAxis(f frame, s scale, label string) {
	for _, v := range s.ticks {
		x := s.at(v)
		c.line(x, f.y0, x, f.y1, styleGrid)
		c.text(x, f.y1+15, "middle", `class="xtick"`, s.tick(v))
	}
	c.line(f.x0, f.y0, f.x0, f.y1, styleAxis)
	c.line(f.x0, f.y1, f.x1, f.y1, styleAxis)
	c.xLabel(f, label)
	if s.zoomed {
		c.breakMark(f.x0+8, f.y1, true)
	}
}

// xLabel writes the label of the x axis under the frame's tick labels.
func (c *canvas) xLabel(f frame, label string) {
	c.text((f.x0+f.x1)/2, f.y1+32, "middle", fmt.Sprintf(`font-size="%.0f" class="xlabel"`, fontLabel), label)
}

// breakMark draws the "//" of a broken axis at (x, y): across a vertical
// axis, or across a horizontal one when horizontal.
func (c *canvas) breakMark(x, y float64, horizontal bool) {
	dx, dy := 5.0, 3.0
	if horizontal {
		dx, dy = 3, 5
	}
	fmt.Fprintf(&c.b, `<g class="axisbreak"><path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="white" stroke-width="5"/>`,
		x-dx, y+dy, x+dx, y-dy, x-dx, y+dy+4, x+dx, y-dy+4)
	fmt.Fprintf(&c.b, `<path d="M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f" stroke="#333" stroke-width="1.2"/></g>`+"\n",
		x-dx, y+dy-1, x+dx, y-dy-1, x-dx, y+dy+5, x+dx, y-dy+5)
}

// errorBar draws a vertical error bar from lo to hi at x (pixels).
func (c *canvas) errorBar(x, lo, hi float64) {
	if math.Abs(hi-lo) < 0.5 {
		return
	}
	fmt.Fprintf(&c.b, `<path class="errorbar" d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8" stroke="black" stroke-width="1"/>`+"\n",
		x, hi, lo, x-4, hi, x-4, lo)
}

// hErrorBar draws a horizontal error bar from lo to hi at y (pixels).
func (c *canvas) hErrorBar(y, lo, hi float64) {
	if math.Abs(hi-lo) < 0.5 {
		return
	}
	fmt.Fprintf(&c.b, `<path class="errorbar" d="M%.1f %.1fH%.1fM%.1f %.1fv8M%.1f %.1fv8" stroke="black" stroke-width="1"/>`+"\n",
		lo, y, hi, lo, y-4, hi, y-4)
}

// marker draws a filled circle.
func (c *canvas) marker(x, y float64, color, title string) {
	fmt.Fprintf(&c.b, `<circle class="point" cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="black" stroke-width="0.6"><title>%s</title></circle>`+"\n",
		x, y, color, html.EscapeString(title))
}

// legendKind is how a legend entry is drawn.
type legendKind uint8

const (
	legendSwatch legendKind = iota // a filled square (bars)
	legendMarker                   // a circle (points)
	legendLine                     // a solid line with a point
	legendDashed                   // a dashed reference line
	legendDotted                   // a dotted reference line
	legendError                    // an error bar
	legendNote                     // text only
)

// legendItem is one legend entry.
type legendItem struct {
	kind         legendKind
	color, label string
}

// legendWidth is the width the legend of items takes.
func legendWidth(items []legendItem) float64 {
	w := 0.0
	for _, it := range items {
		w = math.Max(w, textWidth(it.label, fontSmall))
	}
	return w + 30
}

// legend draws items top-down from (x, y), a glyph and a label each.
func (c *canvas) legend(x, y float64, items []legendItem) {
	c.b.WriteString(`<g class="legend">` + "\n")
	for i, it := range items {
		ly := y + float64(i)*16
		switch it.kind {
		case legendSwatch:
			fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", x, ly-9, it.color)
		case legendMarker:
			fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="black" stroke-width="0.6"/>`+"\n", x+6, ly-4, it.color)
		case legendLine:
			c.line(x-2, ly-4, x+16, ly-4, fmt.Sprintf(`stroke="%s" stroke-width="2"`, it.color))
			fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x+7, ly-4, it.color)
		case legendDashed:
			c.line(x-2, ly-4, x+16, ly-4, fmt.Sprintf(`stroke="%s" %s`, it.color, styleDashed))
		case legendDotted:
			c.line(x-2, ly-4, x+16, ly-4, fmt.Sprintf(`stroke="%s" %s`, it.color, styleDotted))
		case legendError:
			c.errorBar(x+6, ly+1, ly-10)
		}
		lx := x + 22
		if it.kind == legendNote {
			lx = x
		}
		c.text(lx, ly, "start", fmt.Sprintf(`font-size="%.0f" class="legend-item"`, fontSmall), it.label)
	}
	c.b.WriteString("</g>\n")
}
