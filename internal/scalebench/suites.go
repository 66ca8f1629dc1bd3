package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// suite is one run of one package's test binary: the benchmarks it
// selects and the figures of theirs scalebench reports.
type suite struct {
	name    string   // the -only name
	pkg     string   // package directory, relative to the module root
	args    []string // test binary arguments
	figures []figure
}

// figure is a benchmark figure scalebench reports, with issue 13's
// target for it where the issue sets one.
type figure struct {
	label  string         // what the figure is, for the table
	bench  *regexp.Regexp // benchmark names it is read from
	unit   string         // the unit go test reports it in
	scale  float64        // multiplier from unit to show (1 when 0)
	show   string         // the unit shown ("" for unit)
	limit  float64        // the target, in shown units (0: none)
	atMost bool           // the target is <= limit, not < limit
	big    bool           // read from a 10M run, which -small leaves out
}

// suites are the benchmarks behind issue 13's figures, in the order
// they run in a round.
var suites = []suite{
	{name: "policy", pkg: "policy",
		args: []string{"-test.bench", "^BenchmarkVictim$/.*/residents=1048576$", "-test.benchtime", "1s"},
		figures: []figure{{label: "Victim+Evict+Admit, 1M residents", bench: re(`^Victim/`), unit: "ns/op",
			scale: 1e-3, show: "µs", limit: 1}},
	},
	{name: "plan", pkg: "policy/plan",
		args: []string{"-test.bench", "^BenchmarkScaleEpoch$", "-test.benchtime", "10x"},
		figures: []figure{
			{label: "planner plan (wall)", bench: re(`^ScaleEpoch/blocks=10M$`), unit: "plan-ms", limit: 20, big: true},
			{label: "planner plan (CPU)", bench: re(`^ScaleEpoch/`), unit: "plan-cpu-ms"},
		},
	},
	{name: "daemon", pkg: "daemon",
		args: []string{"-test.bench", "^Benchmark(ScaleTrackedBytes|ScaleEpochDecision|RegisterTrack)$",
			"-test.benchtime", "10x"},
		figures: []figure{
			{label: "daemon bytes a block, registered", bench: re(`^ScaleTrackedBytes/blocks=10M/`),
				unit: "B/block", limit: 64, atMost: true, big: true},
			{label: "daemon bytes a block, after epochs", bench: re(`^ScaleEpochDecision/blocks=10M$`),
				unit: "B/block", limit: 64, atMost: true, big: true},
			{label: "daemon epoch decide", bench: re(`^ScaleEpochDecision/blocks=10M$`), unit: "decide-ms",
				limit: 20, big: true},
			{label: "daemon epoch feed", bench: re(`^ScaleEpochDecision/`), unit: "feed-ms"},
			{label: "daemon epoch sweep", bench: re(`^ScaleEpochDecision/`), unit: "sweep-ms"},
			{label: "registration, daemon side", bench: re(`^RegisterTrack/`), unit: "ns/op", scale: 1e-6,
				show: "ms"},
		},
	},
	{name: "hints", pkg: "daemon",
		args: []string{"-test.bench", "^BenchmarkScaleHints$", "-test.benchtime", "3000x"},
		figures: []figure{{label: "daemon hints", bench: re(`^ScaleHints/`), unit: "cores/1M-blocks/s",
			limit: 0.5}},
	},
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// suiteNames lists the suites' names for the -only flag's help.
func suiteNames() string {
	var names []string
	for _, s := range suites {
		names = append(names, s.name)
	}
	return strings.Join(names, ",")
}

// selectSuites returns the suites named in only (comma-separated; all
// when empty), in run order, or an error naming an unknown one.
func selectSuites(only string) ([]suite, error) {
	if only == "" {
		return suites, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []suite
	for _, s := range suites {
		if want[s.name] {
			out = append(out, s)
			delete(want, s.name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("-only: %w %q (want some of %s)", errUnknownSuite, n, suiteNames())
	}
	return out, nil
}

// errUnknownSuite is -only naming a suite that does not exist.
var errUnknownSuite = errors.New("unknown suite")

// shown converts v from the figure's unit to the shown one.
func (f figure) shown(v float64) float64 {
	if f.scale == 0 {
		return v
	}
	return v * f.scale
}

// unitShown is the unit the figure is shown in.
func (f figure) unitShown() string {
	if f.show == "" {
		return f.unit
	}
	return f.show
}

// meets says whether v (in shown units) meets the figure's target.
func (f figure) meets(v float64) bool {
	if f.atMost {
		return v <= f.limit
	}
	return v < f.limit
}
