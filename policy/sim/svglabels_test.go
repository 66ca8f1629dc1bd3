package sim

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLabelPlacer checks that labels of points at nearly the same place
// are drawn without overlapping while there is room, and that a lone
// label keeps the usual place (up and to the right of its point).
func TestLabelPlacer(t *testing.T) {
	tests := []struct {
		name   string
		points [][2]float64
		labels []string
	}{
		{"lone", [][2]float64{{100, 100}}, []string{"LRU"}},
		{"two at one point", [][2]float64{{100, 100}, {101, 100}}, []string{"LRU", "cost_aware"}},
		{"four close", [][2]float64{{100, 100}, {102, 101}, {99, 99}, {101, 102}}, []string{"LRU", "w1h8", "w6h24", "cost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCanvas(400, 300, "t", "")
			p := labelPlacer{f: frame{20, 380, 20, 280}}
			for i, pt := range tt.points {
				p.place(c, pt[0], pt[1], tt.labels[i])
			}
			for i := range p.placed {
				for j := range i {
					if p.placed[i].overlaps(p.placed[j]) {
						t.Errorf("labels %q and %q overlap: %+v %+v", tt.labels[i], tt.labels[j], p.placed[i], p.placed[j])
					}
				}
			}
			svg := string(c.bytes())
			m := regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9.]+)" text-anchor="start" font-size="9"[^>]*>LRU</text>`).FindStringSubmatch(svg)
			if m == nil {
				t.Fatalf("no LRU label drawn from its point:\n%s", svg)
			}
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			if x != 105 || y != 95 {
				t.Errorf("first label at (%g, %g), want the usual (105, 95)", x, y)
			}
			if n := strings.Count(svg, `class="point-label"`); n != len(tt.labels) {
				t.Errorf("%d labels drawn, want %d", n, len(tt.labels))
			}
		})
	}
}
