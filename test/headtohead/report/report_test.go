package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

func sample() *Results {
	d := 2.5
	pts := []result.Point{{T: 0.5, Phase: "A1", Share: 0.5}, {T: 1, Phase: "A1", Share: 0.9}, {T: 2, Phase: "B", Share: 0.4},
		{T: 3, Phase: "R-warm", Share: 1}, {T: 4, Phase: "R-cool", Share: 0.3}, {T: 5, Phase: "R-burst1", Share: 0.4},
		{T: 5.5, Phase: "R-burst1", Share: 0.8}, {T: 6, Phase: "R-gap1", Share: 0.7}, {T: 7, Phase: "R-burst2", Share: 0.7},
		{T: 9, Phase: "trace", Share: 0.6}, {T: 9.5, Phase: "trace", Share: 0.65}}
	w := &result.Report{Blocks: 2, Verified: 2, Series: pts,
		Phases: []result.Phase{{Name: "A1", EndShare: 0.9, To80: &d, Migrated: 4}, {Name: "B", Start: 2, EndShare: 0.4, Migrated: -1}},
		Regret: &result.Regret{RevisitShare: 0.7, Cycles: []result.Cycle{{AtRevisit: 0.3}}, Migrated: 5},
		Replay: &result.Replay{Reads: 10, Node0Share: 0.6, Migrated: 1}}
	bad := *w
	bad.Mismatches = []int{1}
	return &Results{Started: time.Unix(0, 0).UTC(), Kernel: "6.12", Runs: []Run{
		{Config: "first-touch", Workload: w, VMStat: map[string]int64{"pgmigrate_success": 0}},
		{Config: "kvtier-auto", Workload: &bad, Metrics: map[string]float64{`kvtier_migrated_pages_total{direction="promote"}`: 7,
			`kvtier_migrated_pages_total{direction="demote"}`: 3}, VMStat: map[string]int64{"pgmigrate_success": 10}},
		{Config: "damos", Errors: []string{"guest timed out"}},
	}, Targets: []Target{{Name: "checksums", Met: false, Measured: "kvtier-auto"}}}
}

func TestMarkdown(t *testing.T) {
	md := string(Markdown(sample()))
	for _, want := range []string{
		"| first-touch | 0.90 | 0.40 | - | never / - | 0 | 0 |",
		"| kvtier-auto | 0.90 | 0.40 | - | never / - | 10 | 10 |",
		"FAIL: 1 blocks, 0 reads",
		"| damos | failed: guest timed out |",
		"| checksums | no | kvtier-auto |",
		"![hot-set share on node 0 over time](hotshare.svg)",
		"| kvtier-auto | 4 / - / - / 5 / 1 | 7 | 3 | pgmigrate_success 10 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md)
		}
	}
}

func TestSVG(t *testing.T) {
	svg := SVG(sample())
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	counts := map[string]int{}
	texts := ""
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			counts[el.Name.Local]++
		case xml.CharData:
			texts += string(el) + "|"
		}
	}
	// Two runs with series, each broken into hot, regret and trace lines.
	if counts["polyline"] != 6 {
		t.Errorf("%d polylines, want 6 (3 segments x 2 runs)", counts["polyline"])
	}
	for _, want := range []string{"first-touch", "kvtier-auto", "share on node 0", "time since", "revisits", "trace"} {
		if !strings.Contains(texts, want) {
			t.Errorf("SVG text lacks %q", want)
		}
	}
	if strings.Contains(texts, "damos") {
		t.Error("a run without a workload report has a legend entry")
	}
}

func TestMarks(t *testing.T) {
	marks, bursts := Marks(sample().Runs[0].Workload.Series)
	var labels []string
	for _, m := range marks {
		labels = append(labels, m.label)
	}
	if got := strings.Join(labels, ","); got != "A,B,regret: C,cool-off,revisits,trace" {
		t.Errorf("marks %s", got)
	}
	if len(bursts) != 2 || bursts[0] != [2]float64{5, 5.5} || bursts[1] != [2]float64{7, 7} {
		t.Errorf("bursts %v, want [5 5.5] [7 7]", bursts)
	}
}

func TestWriteAllRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAll(dir, sample()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JSONFile, MarkdownFile, SVGFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	res, err := ReadJSON(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 || res.Runs[1].KvtierPages() != 10 || res.Runs[0].ChecksumsOK() != true || res.Runs[1].ChecksumsOK() {
		t.Errorf("round trip: %+v", res.Runs)
	}
}

func TestNiceMax(t *testing.T) {
	for _, tc := range []struct{ v, want float64 }{{7, 7}, {11.2, 12}, {95, 100}, {340, 360}, {2000, 2100}} {
		if got := niceMax(tc.v); got != tc.want {
			t.Errorf("niceMax(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestCommonMarks(t *testing.T) {
	a := []result.Point{{T: 0.2, Phase: "A1"}, {T: 60.2, Phase: "B"}, {T: 150, Phase: "R-cool"}, {T: 180, Phase: "trace"}}
	b := []result.Point{{T: 0.3, Phase: "A1"}, {T: 60.4, Phase: "B"}, {T: 150.5, Phase: "R-cool"}, {T: 160, Phase: "trace"}}
	c := []result.Point{{T: 0.3, Phase: "A1"}, {T: 150.1, Phase: "R-cool"}}
	for _, tc := range []struct {
		name string
		runs []Run
		want string
	}{
		{"one run", []Run{{Workload: &result.Report{Series: a}}}, "A,B,cool-off,trace"},
		{"trace starts apart", []Run{{Workload: &result.Report{Series: a}}, {Workload: &result.Report{Series: b}}}, "A,B,cool-off"},
		{"a phase one run lacks", []Run{{Workload: &result.Report{Series: a}}, {Workload: &result.Report{Series: c}}, {Config: "failed"}}, "A,cool-off"},
		{"none", nil, ""},
	} {
		var got []string
		for _, m := range commonMarks(tc.runs) {
			got = append(got, m.label)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, got, tc.want)
		}
	}
}
