package sim

import (
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// svgNode is one element of a parsed SVG document.
type svgNode struct {
	name  string
	attrs map[string]string
	text  string
}

// parseSVG returns the root's width and height and every element in
// document order; it fails the test on malformed XML.
func parseSVG(t *testing.T, b []byte) (float64, float64, []svgNode) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(b)))
	var nodes []svgNode
	var open []int // the elements being read, innermost last
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := svgNode{name: x.Name.Local, attrs: map[string]string{}}
			for _, a := range x.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			open = append(open, len(nodes))
			nodes = append(nodes, n)
		case xml.EndElement:
			open = open[:len(open)-1]
		case xml.CharData:
			if len(open) > 0 && nodes[open[len(open)-1]].name == "text" {
				nodes[open[len(open)-1]].text += string(x)
			}
		}
	}
	if len(nodes) == 0 || nodes[0].name != "svg" {
		t.Fatalf("not an SVG document: %.80s", b)
	}
	return num(nodes[0].attrs["width"]), num(nodes[0].attrs["height"]), nodes
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// texts returns the text of every element of class cls.
func texts(nodes []svgNode, cls string) []string {
	var out []string
	for _, n := range nodes {
		if n.attrs["class"] == cls {
			out = append(out, n.text)
		}
	}
	return out
}

func count(nodes []svgNode, cls string) int { return len(texts(nodes, cls)) }

// synthAggs is a grid of aggregates like the regret ablation's: LRU,
// cost_aware and regret variants named as name does, latencies of 2.05 to
// 2.2 ms with std 0.01 over 3 seeds, Bélády at 40% hits.
func synthAggs(name func(w, h int) string, lab bool) []Aggregate {
	var as []Aggregate
	for _, sc := range []string{"medium", "constrained"} {
		mul := map[string]float64{"medium": 1, "constrained": 3}[sc]
		add := func(p string, lat, hit, bytes float64) {
			if sc == "constrained" && strings.HasPrefix(p, "regret") {
				lat += 0.2 // regret's worst cell
			}
			bel := Stat{Mean: 0.4}
			if lab {
				bel = Stat{Mean: math.NaN()}
			}
			as = append(as, Aggregate{Workload: "adversarial_burst", Scenario: sc, Quant: "fp16", Policy: p, Runs: 3,
				MeanLatency: Stat{lat * mul, 0.01}, FastHitRatio: Stat{hit, 0.005}, BytesMoved: Stat{bytes, 1e4},
				Belady: bel})
		}
		add("lru", 2.2, 0.10, 3<<20)
		add("cost_aware", 2.05, 0.12, 2.5*(1<<20))
		for _, w := range []int{1, 6, 12} {
			for _, h := range []int{8, 24, 64} {
				add(name(w, h), 2.1+float64(w)/200-float64(h)/1000, 0.11+float64(h)/1000, 2.8*(1<<20))
			}
		}
	}
	return as
}

func kvtierName(w, h int) string { return fmt.Sprintf("regret_aware:horizon=%d,weight=%d", h, w) }
func labName(w, h int) string    { return fmt.Sprintf("regret_aware_w%d.0_h%d", w, h) }

// checkLayout asserts every text's estimated extent lies on the canvas.
func checkLayout(t *testing.T, name string, w, h float64, nodes []svgNode) {
	t.Helper()
	for _, n := range nodes {
		if n.name != "text" || strings.Contains(n.attrs["transform"], "rotate") {
			continue
		}
		x, y := num(n.attrs["x"]), num(n.attrs["y"])
		size := fontTick
		if fs := num(n.attrs["font-size"]); fs > 0 {
			size = fs
		}
		tw := textWidth(n.text, size)
		lo := map[string]float64{"start": x, "middle": x - tw/2, "end": x - tw}[n.attrs["text-anchor"]]
		if lo < -1 || lo+tw > w+1 || y < 0 || y > h {
			t.Errorf("%s: text %q at (%.0f, %.0f) extends off the %.0fx%.0f canvas", name, n.text, x, y, w, h)
		}
	}
}

// TestPlotsReadable: every per-workload plot has axis labels with units,
// a y axis zoomed to the data (not from 0) with a break mark, error bars
// explained in the legend, short policy labels, spelled units and, on
// hit-ratio plots, Bélády's line where the runs measured it.
func TestPlotsReadable(t *testing.T) {
	tests := []struct {
		name   string
		aggs   []Aggregate
		belady bool
	}{
		{"kvtier names", synthAggs(kvtierName, false), true},
		{"lab names", synthAggs(labName, true), false},
	}
	for _, tt := range tests {
		ps := plots(tt.aggs)
		if len(ps) != 3 {
			t.Fatalf("%s: %d plots, want 3", tt.name, len(ps))
		}
		for _, p := range ps {
			w, h, nodes := parseSVG(t, p.svg)
			checkLayout(t, p.name, w, h, nodes)
			ylabels := texts(nodes, "ylabel")
			want := map[string]string{"latency": "(ms)", "hit_ratio": "(%)", "bytes": "(MiB)"}
			unit := want[strings.TrimSuffix(strings.TrimPrefix(p.name, "adversarial_burst_"), ".svg")]
			if len(ylabels) != 1 || !strings.Contains(ylabels[0], unit) {
				t.Errorf("%s %s: y labels %q, want one with %s", tt.name, p.name, ylabels, unit)
			}
			legend := strings.Join(texts(nodes, "legend-item"), "|")
			if !strings.Contains(legend, "mean ± std over 3 seeds") {
				t.Errorf("%s %s: legend %q does not explain the error bars", tt.name, p.name, legend)
			}
			xt := strings.Join(texts(nodes, "xtick"), "|")
			if !strings.Contains(xt, "regret w12 h64") || strings.Contains(xt, "regret_aware") || !strings.Contains(xt, "LRU") {
				t.Errorf("%s %s: x labels %q, want short ones", tt.name, p.name, xt)
			}
			for _, tk := range texts(nodes, "ytick") {
				if _, err := strconv.ParseFloat(tk, 64); err != nil {
					t.Errorf("%s %s: tick %q is not a plain number (no k or M)", tt.name, p.name, tk)
				}
			}
			gotBel := count(nodes, "belady") > 0
			if wantBel := tt.belady && strings.Contains(p.name, "hit_ratio"); gotBel != wantBel {
				t.Errorf("%s %s: Bélády line %v, want %v", tt.name, p.name, gotBel, wantBel)
			}
		}
		// The latency panels zoom: medium's ticks span about 2.0-2.3 ms.
		_, _, nodes := parseSVG(t, ps[0].svg)
		var ticks []float64 // the first panel's: at the first tick's x
		for _, n := range nodes {
			if n.attrs["class"] == "ytick" && (len(ticks) == 0 || n.attrs["x"] == "78.0") {
				ticks = append(ticks, num(n.text))
			}
		}
		first, last := ticks[0], ticks[len(ticks)-1]
		if first <= 1.5 || last > 2.6 || count(nodes, "axisbreak") == 0 {
			t.Errorf("%s: medium latency axis %v..%v (break marks %d), want zoomed to 2.05-2.2 with a break",
				tt.name, first, last, count(nodes, "axisbreak"))
		}
	}
}

// TestBeladyLinePosition: the Bélády line sits at Bélády's hit ratio on
// the zoomed scale, within the plot.
func TestBeladyLinePosition(t *testing.T) {
	d := groupedFor(synthAggs(kvtierName, false)[:11], plotMeasures[1], func(a Aggregate) string { return a.Scenario })
	if d.refs == nil || d.refs[0].Mean != 40 {
		t.Fatalf("refs %v, want Bélády at 40%%", d.refs)
	}
	lo, hi := valueRange(d.vals[0], d.refs)
	s := zoomScale(lo, hi, 100, 316, 76)
	_, _, nodes := parseSVG(t, groupedChart(d))
	for _, n := range nodes {
		if n.attrs["class"] == "belady" {
			if y := num(n.attrs["y1"]); math.Abs(y-s.at(40)) > 0.1 || y < 76 || y > 316 {
				t.Errorf("Bélády line at y %.1f, want %.1f", y, s.at(40))
			}
		}
	}
}

// TestZoomScale: the axis starts at 0 when the data are near it, zooms
// otherwise, has nice ticks covering the data, and caps percentages.
func TestZoomScale(t *testing.T) {
	tests := []struct {
		lo, hi, max float64
		zoomed      bool
		wantLo      float64 // upper bound of the axis's low end
	}{
		{2.05, 2.2, 0, true, 2.05},
		{0.1, 10, 0, false, 0},
		{6.0, 6.3, 0, true, 6.0},
		{90, 99.5, 100, true, 90},
		{0, 0, 0, false, 0},
		{5, 5, 0, true, 5},
		{math.NaN(), math.NaN(), 0, false, 0},
	}
	for _, tt := range tests {
		s := zoomScale(tt.lo, tt.hi, tt.max, 100, 0)
		if s.zoomed != tt.zoomed || s.lo > tt.wantLo || (!math.IsNaN(tt.hi) && s.hi < tt.hi) {
			t.Errorf("zoomScale(%v, %v): [%v, %v] zoomed %v, want zoomed %v covering the data", tt.lo, tt.hi, s.lo, s.hi, s.zoomed, tt.zoomed)
		}
		if tt.max > 0 && s.hi > tt.max {
			t.Errorf("zoomScale(%v, %v, max %v): hi %v", tt.lo, tt.hi, tt.max, s.hi)
		}
		if len(s.ticks) < 2 || s.ticks[0] < s.lo-1e-9 || s.ticks[len(s.ticks)-1] > s.hi+1e-9 {
			t.Errorf("zoomScale(%v, %v): ticks %v outside [%v, %v]", tt.lo, tt.hi, s.ticks, s.lo, s.hi)
		}
	}
}

func TestShortPolicy(t *testing.T) {
	tests := map[string]string{
		"regret_aware:horizon=24,weight=12": "regret w12 h24",
		"regret_aware_w12.0_h24":            "regret w12 h24",
		"kvtier:regret_aware:weight=6":      "regret w6",
		"lru":                               "LRU",
		"cost_aware":                        "cost_aware",
		"s3fifo:small=0.25,threshold=2":     "s3fifo small=0.25 threshold=2",
		"kvtier:arc":                        "arc",
	}
	for in, want := range tests {
		if got := shortPolicy(in); got != want {
			t.Errorf("shortPolicy(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestByteUnit(t *testing.T) {
	tests := []struct {
		max  float64
		unit string
	}{{100, "B"}, {5000, "KiB"}, {3 << 20, "MiB"}, {5 << 30, "GiB"}, {1 << 50, "TiB"}}
	for _, tt := range tests {
		if _, u := byteUnit(tt.max); u != tt.unit {
			t.Errorf("byteUnit(%v) = %s, want %s", tt.max, u, tt.unit)
		}
	}
}

// TestStudyPlots: the lab's four plot kinds, for kvtier's and the lab's
// policy names: panels per cell with axis labels, a line per weight or
// horizon, LRU's reference line, Bélády's where measured, and the failure
// case in the cell where regret gains least.
func TestStudyPlots(t *testing.T) {
	tests := []struct {
		name   string
		aggs   []Aggregate
		belady bool
	}{
		{"kvtier", synthAggs(kvtierName, false), true},
		{"lab", synthAggs(labName, true), false},
	}
	for _, tt := range tests {
		ps := studyPlots(tt.aggs)
		got := map[string][]svgNode{}
		for _, p := range ps {
			w, h, nodes := parseSVG(t, p.svg)
			checkLayout(t, tt.name+" "+p.name, w, h, nodes)
			got[p.name] = nodes
		}
		for _, f := range []string{FileLatencyVsHorizon, FileHitRateVsWeight, FileLatencyVsBytes, FileFailureCase} {
			if got[f] == nil {
				t.Fatalf("%s: no %s in %d plots", tt.name, f, len(ps))
			}
		}
		hz := got[FileLatencyVsHorizon]
		if n := count(hz, "sweep-line"); n != 2*3 {
			t.Errorf("%s: %d horizon lines, want 3 weights x 2 panels", tt.name, n)
		}
		if !strings.Contains(strings.Join(texts(hz, "xlabel"), "|"), "regret horizon (accesses") || count(hz, "lru-line") != 2 {
			t.Errorf("%s: horizon x labels %q, LRU lines %d", tt.name, texts(hz, "xlabel"), count(hz, "lru-line"))
		}
		if n := count(got[FileHitRateVsWeight], "belady"); (n == 2) != tt.belady {
			t.Errorf("%s: %d Bélády lines on hit rate vs weight, want them: %v", tt.name, n, tt.belady)
		}
		fc := got[FileFailureCase]
		if title := texts(fc, "title"); len(title) != 1 || !strings.Contains(title[0], "constrained") {
			t.Errorf("%s: failure case %q, want the constrained cell", tt.name, title)
		}
		if n := count(fc, "point") + count(fc, "bar"); n != 11 {
			t.Errorf("%s: failure case shows %d policies, want 11", tt.name, n)
		}
	}
}

// TestWriteStudyPlots: a grid without regret variants gets the plots it
// has data for, and the files land in the directory.
func TestWriteStudyPlots(t *testing.T) {
	g, _ := GridPreset("regret")
	g.Policies = []Sweep{{Name: "lru"}, {Name: "arc"}}
	g.Seeds = []int64{7, 42}
	rs, err := RunGrid(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := WriteStudyPlots(dir, rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || filepath.Base(files[0]) != FileLatencyVsBytes {
		t.Fatalf("files %v, want only %s (no regret variants)", files, FileLatencyVsBytes)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	_, _, nodes := parseSVG(t, b)
	if n := count(nodes, "point"); n != 2*len(g.Workloads)*len(g.Scenarios) {
		t.Errorf("%d points, want one per policy and cell", n)
	}
}
