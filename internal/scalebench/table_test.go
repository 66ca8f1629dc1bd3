package main

import (
	"errors"
	"strings"
	"testing"
)

// testSuite has one figure with a target (< 20 plan-ms, 10M only) and
// one without, shown scaled.
var testSuite = suite{name: "plan", pkg: "policy/plan", figures: []figure{
	{label: "plan", bench: re(`^ScaleEpoch/blocks=10M$`), unit: "plan-ms", limit: 20, big: true},
	{label: "cycle", bench: re(`^Victim/`), unit: "ns/op", scale: 1e-3, show: "µs"},
}}

func results(name string, figs map[string]float64) []result {
	return []result{{name: name, figures: figs}}
}

func TestTableVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		new, base  []float64
		verdict    string
		withMedian string
	}{
		{name: "met every round", new: []float64{12, 19.9}, base: []float64{24, 26},
			verdict: "| met |", withMedian: "| 15.9 plan-ms | 25 plan-ms | 0.64x |"},
		{name: "missed once", new: []float64{12, 25, 13}, base: []float64{20, 20, 20},
			verdict: "| missed in 1 of 3 (worst 1.25x the target) |", withMedian: "| 13 plan-ms | 20 plan-ms | 0.65x |"},
		{name: "at the limit misses a strict target", new: []float64{20}, base: []float64{10},
			verdict: "missed in 1 of 1 (worst 1.00x the target)", withMedian: "| 2.00x |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable(2)
			for i := range tc.new {
				tb.add(0, testSuite, results("ScaleEpoch/blocks=10M", map[string]float64{"plan-ms": tc.new[i]}))
				tb.add(1, testSuite, results("ScaleEpoch/blocks=10M", map[string]float64{"plan-ms": tc.base[i]}))
			}
			if len(tb.rows) != 1 {
				t.Fatalf("%d rows, want 1", len(tb.rows))
			}
			line := tb.rows[0].line(true)
			for _, want := range []string{tc.verdict, tc.withMedian, "| < 20 plan-ms |"} {
				if !strings.Contains(line, want) {
					t.Errorf("line %q lacks %q", line, want)
				}
			}
		})
	}
}

func TestTableScalesAndSkips(t *testing.T) {
	tb := newTable(1)
	tb.add(0, testSuite, []result{
		{name: "Victim/lru/residents=1048576", figures: map[string]float64{"ns/op": 67.02}},
		{name: "Victim/arc/residents=1048576", figures: map[string]float64{"ns/op": 1234}},
		{name: "ScaleEpoch/blocks=1M", figures: map[string]float64{"plan-ms": 3}}, // not the 10M figure
		{name: "Other", figures: map[string]float64{"ns/op": 5}},
	})
	var b strings.Builder
	tb.write(&b, []*build{{label: "new"}})
	out := b.String()
	for _, want := range []string{"| cycle | Victim/lru/residents=1048576 |  | 0.067 µs | 0.067 µs |  |",
		"| Victim/arc/residents=1048576 |  | 1.23 µs |"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "blocks=1M") || strings.Contains(out, "Other") || strings.Contains(out, "base") {
		t.Errorf("table has a row or column it should not:\n%s", out)
	}
}

func TestTableCheck(t *testing.T) {
	tb := newTable(1)
	tb.add(0, testSuite, results("Victim/lru/residents=1048576", map[string]float64{"ns/op": 60}))
	if err := tb.check([]suite{testSuite}, true); err != nil {
		t.Fatalf("small run: %v (the 10M figure is not expected)", err)
	}
	err := tb.check([]suite{testSuite}, false)
	if !errors.Is(err, errNoFigure) || !strings.Contains(err.Error(), "plan (") {
		t.Fatalf("error %v, want errNoFigure naming plan", err)
	}
}

func TestSelectSuites(t *testing.T) {
	sel, err := selectSuites("hints, policy")
	if err != nil || len(sel) != 2 || sel[0].name != "policy" || sel[1].name != "hints" {
		t.Fatalf("got %v, %v; want policy then hints", sel, err)
	}
	if all, err := selectSuites(""); err != nil || len(all) != len(suites) {
		t.Fatalf("got %d suites, %v; want all %d", len(all), err, len(suites))
	}
	if _, err := selectSuites("policy,nope"); !errors.Is(err, errUnknownSuite) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("error %v, want errUnknownSuite naming nope", err)
	}
}

func TestNumAndMedian(t *testing.T) {
	for v, want := range map[float64]string{21.86: "21.9", 0.148: "0.148", 57.3: "57.3", 1091: "1091", 0.00001: "0.00001", 0: "0"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
