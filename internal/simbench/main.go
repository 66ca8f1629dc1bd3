// Command simbench times `kvtier sim` against libCacheSim's cachesim on the
// same trace, whole process, alternately, as `make bench-sim` runs it: it
// generates (or reuses) a CSV trace of Zipf(1.0) requests that both tools
// read, then for each policy runs kvtier and cachesim one after the other,
// several rounds, and prints accesses per second (median over the rounds),
// the ratio kvtier/cachesim, the peak RSS of each and the hit ratios (which
// must agree: a speed-up that changes them is no speed-up).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	var o options
	flag.StringVar(&o.kvtier, "kvtier", "./kvtier", "kvtier binary")
	flag.StringVar(&o.cachesim, "cachesim", "../shared/tools/libcachesim/cachesim", "libCacheSim's cachesim binary")
	flag.StringVar(&o.trace, "trace", ".cache/zipf1.0-5M-1M.csv", "trace file, generated when missing")
	flag.IntVar(&o.requests, "requests", 5_000_000, "requests of a generated trace")
	flag.IntVar(&o.objects, "objects", 1_000_000, "objects of a generated trace")
	flag.IntVar(&o.capacity, "capacity", 100_000, "cache capacity in unit-size objects")
	flag.IntVar(&o.rounds, "rounds", 3, "runs of each tool and policy, alternating")
	flag.StringVar(&o.policies, "policies", "lru,arc,s3fifo", "policies, named alike in both tools")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "simbench:", err)
		os.Exit(1)
	}
}

type options struct {
	kvtier, cachesim, trace, policies string
	requests, objects, capacity       int
	rounds                            int
}

func run(o options) error {
	if o.rounds < 1 || o.capacity < 1 {
		return fmt.Errorf("want -rounds and -capacity >= 1, not %d and %d", o.rounds, o.capacity)
	}
	// cachesim runs in a scratch directory: every path is made absolute.
	for _, p := range []*string{&o.kvtier, &o.cachesim, &o.trace} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = abs
	}
	for _, bin := range []string{o.kvtier, o.cachesim} {
		if _, err := os.Stat(bin); err != nil {
			return fmt.Errorf("binary: %w", err)
		}
	}
	if _, err := os.Stat(o.trace); err != nil {
		fmt.Printf("generating %s: %d requests, Zipf(1.0) over %d objects\n", o.trace, o.requests, o.objects)
		if err := os.MkdirAll(filepath.Dir(o.trace), 0o755); err != nil {
			return err
		}
		if err := writeTrace(o.trace, o.requests, o.objects, 1); err != nil {
			return err
		}
	}
	requests, err := countRequests(o.trace)
	if err != nil {
		return err
	}
	fmt.Printf("trace %s: %d requests; capacity %d objects; %d rounds, alternating\n\n", o.trace, requests,
		o.capacity, o.rounds)
	rows, err := measure(o, requests)
	if err != nil {
		return err
	}
	printRows(os.Stdout, rows)
	return nil
}
