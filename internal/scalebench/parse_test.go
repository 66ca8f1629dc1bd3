package main

import (
	"strings"
	"testing"
)

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line    string
		ok      bool
		name    string
		figures map[string]float64
		err     string
	}{
		{line: "BenchmarkScaleEpoch/blocks=10M-2   10  72575083 ns/op  50.71 observe-ms  21.86 plan-ms", ok: true,
			name: "ScaleEpoch/blocks=10M", figures: map[string]float64{"ns/op": 72575083, "observe-ms": 50.71,
				"plan-ms": 21.86}},
		{line: "BenchmarkVictim/lru/residents=1048576-2 \t 1765774\t  67.02 ns/op", ok: true,
			name: "Victim/lru/residents=1048576", figures: map[string]float64{"ns/op": 67.02}},
		{line: "BenchmarkX/a-b 3 1.5 ns/op", ok: true, name: "X/a-b", figures: map[string]float64{"ns/op": 1.5}},
		{line: "BenchmarkScaleHints/blocks=1M", ok: false},
		{line: "BenchmarkScaleHints/blocks=1M log line of three", ok: false},
		{line: "PASS", ok: false},
		{line: "goos: linux", ok: false},
		{line: "ok  	github.com/kvtier/kvtier/policy	12.3s", ok: false},
		{line: "BenchmarkX-2 10 abc ns/op", err: `figure "abc" of unit "ns/op"`},
	} {
		t.Run(tc.line, func(t *testing.T) {
			res, ok, err := parseLine(tc.line)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || ok != tc.ok {
				t.Fatalf("ok %v, err %v; want ok %v", ok, err, tc.ok)
			}
			if !ok {
				return
			}
			if res.name != tc.name || len(res.figures) != len(tc.figures) {
				t.Fatalf("got %q %v, want %q %v", res.name, res.figures, tc.name, tc.figures)
			}
			for u, v := range tc.figures {
				if res.figures[u] != v {
					t.Errorf("%s = %v, want %v", u, res.figures[u], v)
				}
			}
		})
	}
}

func TestParseResultsNamesLine(t *testing.T) {
	out := "goos: linux\nBenchmarkA-2 1 5 ns/op\nBenchmarkB-2 1 x ns/op\n"
	if _, err := parseResults(strings.NewReader(out)); err == nil || !strings.HasPrefix(err.Error(), "line 3:") {
		t.Fatalf("error %v, want one naming line 3", err)
	}
	res, err := parseResults(strings.NewReader("header\nBenchmarkA-2 1 5 ns/op\nBenchmarkB/c-4 2 7 ns/op\nPASS\n"))
	if err != nil || len(res) != 2 || res[0].name != "A" || res[1].name != "B/c" || res[1].figures["ns/op"] != 7 {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestTrimProcs(t *testing.T) {
	for in, want := range map[string]string{
		"ScaleHints/blocks=1M-2": "ScaleHints/blocks=1M", "A-16": "A", "A": "A", "A-": "A-",
		"Victim/kv-x": "Victim/kv-x",
	} {
		if got := trimProcs(in); got != want {
			t.Errorf("trimProcs(%q) = %q, want %q", in, got, want)
		}
	}
}
