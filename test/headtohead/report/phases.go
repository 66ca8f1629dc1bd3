package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// mark is one phase boundary of the picture.
type mark struct {
	t     float64
	label string
}

// markLabels name the phase labels that begin a marked span.
var markLabels = map[string]string{"A1": "A", "B": "B", "A2": "A again", "R-warm": "regret: C",
	"R-cool": "cool-off", "R-burst1": "revisits", "trace": "trace"}

// Marks returns the phase boundaries of a series (where each marked label
// first appears) and the spans of the regret phase's bursts.
func Marks(pts []result.Point) (marks []mark, bursts [][2]float64) {
	seen := map[string]bool{}
	for i, pt := range pts {
		if l, ok := markLabels[pt.Phase]; ok && !seen[pt.Phase] {
			seen[pt.Phase] = true
			marks = append(marks, mark{pt.T, l})
		}
		if !strings.HasPrefix(pt.Phase, "R-burst") {
			continue
		}
		if i == 0 || pts[i-1].Phase != pt.Phase {
			bursts = append(bursts, [2]float64{pt.T, pt.T})
		}
		bursts[len(bursts)-1][1] = pt.T
	}
	return marks, bursts
}

// commonMarks returns the phase boundaries every run shares (within a
// second): phases after the regret phase's cool-off, which ends early once
// C is half demoted, begin at other times in each run and are not marked.
func commonMarks(runs []Run) []mark {
	var out []mark
	first := true
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, r := range runs {
		if r.Workload == nil || len(r.Workload.Series) == 0 {
			continue
		}
		marks, _ := Marks(r.Workload.Series)
		seen := map[string]bool{}
		for _, m := range marks {
			seen[m.label] = true
			if first {
				out = append(out, m)
				lo[m.label], hi[m.label] = m.t, m.t
			}
			lo[m.label], hi[m.label] = min(lo[m.label], m.t), max(hi[m.label], m.t)
		}
		if !first {
			out = keepSeen(out, seen)
		}
		first = false
	}
	var kept []mark
	for _, m := range out {
		if hi[m.label]-lo[m.label] <= 1 {
			kept = append(kept, m)
		}
	}
	return kept
}

func keepSeen(ms []mark, seen map[string]bool) []mark {
	var out []mark
	for _, m := range ms {
		if seen[m.label] {
			out = append(out, m)
		}
	}
	return out
}

// phaseMarks draws the phase boundaries all runs share.
func phaseMarks(b *bytes.Buffer, p plotArea, runs []Run) {
	for i, m := range commonMarks(runs) {
		x := p.x(m.t)
		// Alternate labels above and inside the plot: phases can be close.
		y := padT - 4
		if i%2 == 1 {
			y = padT + 12
		}
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n", x, padT, x, padT+plotH)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" fill=\"#555\" font-size=\"11\">%s</text>\n", x+3, y, m.label)
	}
}
