package result

import (
	"encoding/json"
	"math"
	"testing"
)

func series(phase string, t0 float64, shares ...float64) []Point {
	pts := make([]Point, len(shares))
	for i, s := range shares {
		pts[i] = Point{T: t0 + float64(i)*0.5, Phase: phase, Share: s}
	}
	return pts
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestSummarizePhase(t *testing.T) {
	pts := append(series("A1", 0, 0.5, 0.6, 0.9, 1), series("B", 2, 0.2, 0.4, 0.79, 0.81)...)
	for _, tc := range []struct {
		name                   string
		start                  float64
		first, mean, end, to80 float64
		reached                bool
	}{
		{"A1", 0, 0.5, 0.75, 1, 1, true},
		{"B", 2, 0.2, 0.55, 0.81, 1.5, true},
		{"A2", 4, 0, 0, 0, 0, false},
	} {
		p := SummarizePhase(Phase{Name: tc.name, Start: tc.start}, pts)
		if !near(p.StartShare, tc.first) || !near(p.MeanShare, tc.mean) || !near(p.EndShare, tc.end) {
			t.Errorf("%s: start/mean/end %v/%v/%v, want %v/%v/%v", tc.name, p.StartShare, p.MeanShare, p.EndShare, tc.first, tc.mean, tc.end)
		}
		if (p.To80 != nil) != tc.reached || (p.To80 != nil && !near(*p.To80, tc.to80)) {
			t.Errorf("%s: seconds to 80%% %v, want %v (reached %v)", tc.name, p.To80, tc.to80, tc.reached)
		}
	}
}

func TestGapFigures(t *testing.T) {
	for _, tc := range []struct {
		name       string
		shares     []float64
		burstEnd   float64
		mean, held float64
	}{
		{"kept", []float64{1, 1, 1, 1}, 1, 1, 5},
		{"demoted after a second", []float64{1, 0.9, 0.4, 0}, 1, 0.575, 1},
		{"never on node 0", []float64{0, 0, 0, 0}, 0, 0, 5},
		{"half stays half", []float64{0.5, 0.5, 0.5, 0.5}, 0.5, 0.5, 5},
	} {
		mean, held := GapFigures(series("R-gap1", 10, tc.shares...), "R-gap1", 10, 5, tc.burstEnd)
		if !near(mean, tc.mean) || !near(held, tc.held) {
			t.Errorf("%s: mean %v held %v, want %v %v", tc.name, mean, held, tc.mean, tc.held)
		}
	}
}

func TestRegretSummarize(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		cycles               []Cycle
		revisit, gap, heldSh float64
	}{
		{"none", nil, 0, 0, 0},
		{"one cycle counts itself", []Cycle{{AtRevisit: 0.2, GapMean: 0.5, Held: 5, Gap: 10}}, 0.2, 0.5, 0.5},
		{"later cycles only", []Cycle{{AtRevisit: 0, GapMean: 1, Held: 10, Gap: 10}, {AtRevisit: 1, GapMean: 1, Held: 10, Gap: 10},
			{AtRevisit: 0.5, GapMean: 0, Held: 0, Gap: 10}}, 0.75, 2.0 / 3, 2.0 / 3},
	} {
		r := Regret{Cycles: tc.cycles}
		r.Summarize()
		if !near(r.RevisitShare, tc.revisit) || !near(r.GapShare, tc.gap) || !near(r.HeldShare, tc.heldSh) {
			t.Errorf("%s: revisit %v gap %v held %v, want %v %v %v", tc.name, r.RevisitShare, r.GapShare, r.HeldShare, tc.revisit, tc.gap, tc.heldSh)
		}
	}
}

func TestSecondsTo(t *testing.T) {
	pts := series("B", 20, 0.1, 0.96, 1)
	if d, ok := SecondsTo(pts, "B", 19.5, 0.95); !ok || !near(d, 1) {
		t.Errorf("SecondsTo = %v, %v; want 1, true", d, ok)
	}
	if _, ok := SecondsTo(pts, "A2", 0, 0.95); ok {
		t.Error("SecondsTo found a phase with no samples")
	}
}

func TestCPUSeconds(t *testing.T) {
	stats := "1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 500 500 0 0 20 0 1 0 1 0 0\n" +
		"240 (kvtier) S 1 240 1 0 -1 4194560 1 0 0 0 250 130 0 0 20 0 9 0 300 0 0\n" +
		"241 (kdamond.0) S 2 0 0 0 -1 2129984 0 0 0 0 0 700 0 0 20 0 1 0 310 0 0\n" +
		"242 (kdamond.1) S 2 0 0 0 -1 2129984 0 0 0 0 10 40 0 0 20 0 1 0 310 0 0\n" +
		"243 (a (kvtier) b) S 1 0 0 0 -1 0 0 0 0 0 900 900 0 0 20 0 1 0 1 0 0\n" +
		"garbage\n"
	d, k := CPUSeconds([]byte(stats))
	if !near(d, 3.8) || !near(k, 7.5) {
		t.Errorf("CPUSeconds = %v, %v; want 3.8, 7.5", d, k)
	}
}

func TestChecksumsOK(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Report
		want bool
	}{
		{"all verified", Report{Blocks: 4, Verified: 4}, true},
		{"a mismatch", Report{Blocks: 4, Verified: 4, Mismatches: []int{2}}, false},
		{"a live mismatch", Report{Blocks: 4, Verified: 4, LiveMismatches: 1}, false},
		{"not verified", Report{Blocks: 4}, false},
		{"empty", Report{}, false},
	} {
		if got := tc.r.ChecksumsOK(); got != tc.want {
			t.Errorf("%s: ChecksumsOK = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPointJSON(t *testing.T) {
	b, err := json.Marshal([]Point{{T: 1.23456789, Phase: "R-gap1", Share: 0.123456}, {T: 2, Phase: `a"b`, Share: 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"t":1.235,"phase":"R-gap1","share":0.1235},{"t":2.000,"phase":"a\"b","share":1.0000}]`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back []Point
	if err := json.Unmarshal(b, &back); err != nil || back[0].T != 1.235 || back[1].Phase != `a"b` {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

// TestMinPages: each new set's pages that started off node 0, in and out.
func TestMinPages(t *testing.T) {
	r := &Report{BlockKiB: 8, SetA: []int{1, 2}, SetB: []int{3, 4, 5, 6},
		Phases: []Phase{{Set: "A", StartShare: 0.5}, {Set: "B", StartShare: 0.25}, {Set: "A", StartShare: 1}},
		Regret: &Regret{Blocks: []int{7}, FillBlocks: 2, StartShare: 0, FillStartShare: 0.5}}
	// 2 pages a block: A 2*0.5*2*2 = 4, B 2*0.75*4*2 = 12, A again 0,
	// C 2*1*1*2 = 4, D 2*0.5*2*2 = 4.
	if got := r.MinPages(); got != 24 {
		t.Errorf("MinPages = %d, want 24", got)
	}
	if got := (&Report{}).MinPages(); got != 0 {
		t.Errorf("MinPages of an empty report = %d, want 0", got)
	}
}
