package sim

// Point labels of the scatter plots (latency vs bytes moved): each label
// goes at the first of a few offsets around its point where it overlaps
// no label placed before it and stays inside the panel, so that two
// policies at nearly the same point do not print over each other. Labels
// are drawn after the markers, with a white halo, so that markers and
// error bars do not hide them.

import "fmt"

const (
	labelFont      = 9   // font size of a point label
	labelCharWidth = 5.4 // average advance of a character at labelFont
	labelHeight    = 10  // height of a label's box
)

// box is a rectangle in canvas coordinates.
type box struct{ x0, y0, x1, y1 float64 }

func (b box) overlaps(o box) bool {
	return b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1
}

func (b box) inside(f frame) bool {
	return b.x0 >= f.x0 && b.x1 <= f.x1+40 && b.y0 >= f.y0-4 && b.y1 <= f.y1
}

// labelOffsets are the places tried around a point: (dx, dy) of the text's
// baseline and whether it ends there (anchor "end") instead of starting.
var labelOffsets = []struct {
	dx, dy float64
	end    bool
}{
	{5, -5, false}, {5, 13, false}, {-5, -5, true}, {-5, 13, true},
	{5, -16, false}, {5, 24, false}, {-5, -16, true}, {-5, 24, true},
}

// labelPlacer places the point labels of one panel.
type labelPlacer struct {
	f      frame
	placed []box
}

// place draws s near (x, y) where it overlaps no earlier label, or at the
// first offset when every place is taken.
func (p *labelPlacer) place(c *canvas, x, y float64, s string) {
	w := float64(len(s)) * labelCharWidth
	pick := 0
	for i, o := range labelOffsets {
		if b := labelBox(x, y, w, o.dx, o.dy, o.end); b.inside(p.f) && !p.collides(b) {
			pick = i
			break
		}
	}
	o := labelOffsets[pick]
	p.placed = append(p.placed, labelBox(x, y, w, o.dx, o.dy, o.end))
	anchor := "start"
	if o.end {
		anchor = "end"
	}
	c.text(x+o.dx, y+o.dy, anchor, fmt.Sprintf(`font-size="%d" fill="#333" stroke="white" stroke-width="3" `+
		`paint-order="stroke" class="point-label"`, labelFont), s)
}

func (p *labelPlacer) collides(b box) bool {
	for _, o := range p.placed {
		if b.overlaps(o) {
			return true
		}
	}
	return false
}

// labelBox is the box of a label of width w whose baseline starts (or,
// with end, ends) at (x+dx, y+dy).
func labelBox(x, y, w, dx, dy float64, end bool) box {
	x0 := x + dx
	if end {
		x0 -= w
	}
	return box{x0, y + dy - labelHeight + 2, x0 + w, y + dy + 2}
}
