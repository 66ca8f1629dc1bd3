// Command scalebench measures issue 13's daemon, planner and policy
// figures in one run, as `make bench-scale` runs it: it builds the test
// binaries of ./policy, ./policy/plan and ./daemon (and, with -base, the
// same packages at another revision, in a temporary git worktree), runs
// their scale benchmarks alternately for several rounds, and prints each
// figure beside its target: every round's value, the median, the ratio to
// the base build measured in the same run, and whether every round met
// the target.
//
// The benchmarks are the ones the README's "Daemon scale" section names;
// -small leaves out the 10M-block runs (KVTIER_BENCH_10M), which take
// several GiB of memory and a few minutes a round. The daemon's
// benchmarks need root.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	o := parseFlags()
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// options are scalebench's flags.
type options struct {
	base   string // revision to build and run alternately ("" for none)
	rounds int    // runs of every benchmark of every build
	small  bool   // leave out the 10M-block runs
	only   string // comma-separated suites to run ("" for all)
	keep   string // directory to keep the test binaries and raw output in
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.base, "base", "", "a git revision to build and run alternately (ratios new/base)")
	flag.IntVar(&o.rounds, "rounds", 2, "rounds: each benchmark of each build runs once a round")
	flag.BoolVar(&o.small, "small", false, "leave out the 10M-block runs (1M only)")
	flag.StringVar(&o.only, "only", "", "comma-separated suites to run: "+suiteNames())
	flag.StringVar(&o.keep, "keep", "", "keep the test binaries and each run's raw output in this directory")
	flag.Parse()
	return o
}
