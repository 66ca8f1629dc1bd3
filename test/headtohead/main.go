// Command headtohead runs the head-to-head tiering benchmark of issue 11
// (`make bench-tiering`): one emulated-CXL guest per configuration
// (first touch, kernel TPP, DAMON DAMOS, kvtier with the damon sampler,
// with sampler "auto" and with hints), the same workload in each, and
// writes RESULTS.md, results.json and hotshare.svg.
//
//	CGO_ENABLED=0 go run ./test/headtohead -out test/headtohead/results
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kvtier/kvtier/test/guest"
	"github.com/kvtier/kvtier/test/headtohead/bench"
	"github.com/kvtier/kvtier/test/headtohead/report"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "headtohead:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "test/headtohead/results", "directory of RESULTS.md, results.json and hotshare.svg")
	configs := flag.String("configs", strings.Join(bench.Names(), ","), "configurations to run, comma-separated")
	short := flag.Bool("short", false, "the short phases of `make test` instead of the issue's")
	kernel := flag.String("kernel", "6.12", "guest kernel series")
	topo := flag.String("topology", "cxl-hmat-384", "topology under test/topologies")
	tracePath := flag.String("trace", "", "Mooncake trace (default ../shared/traces/mooncake_conversation_trace.jsonl from the module root, else the head in test/headtohead/testdata)")
	traceLines := flag.Int("trace-lines", 1000, "lines of the trace copied into the guest (0: all)")
	prebuilt := flag.String("prebuilt", "", "directory with prebuilt guest binaries (kvtier, probe, hhwork) to use")
	logs := flag.String("logs", "test/.cache/headtohead", "directory of the guests' console logs")
	from := flag.String("from", "", "rewrite the report from this results.json instead of running")
	profile := flag.String("profile", "", "directory receiving a Go CPU profile of each kvtier daemon (CONFIG.pprof)")
	update := flag.String("update", "", "run -configs and replace their runs in this results.json (the others are kept)")
	flag.Parse()
	if *from != "" {
		res, err := report.ReadJSON(*from)
		if err != nil {
			return err
		}
		res.Targets = bench.Targets(res.Runs)
		return report.WriteAll(*out, res)
	}
	root, err := findRoot()
	if err != nil {
		return err
	}
	opt, err := options(root, *configs, *short, *kernel, *topo, *tracePath, *traceLines)
	if err != nil {
		return err
	}
	opt.Prebuilt, opt.LogDir, opt.ProfileDir = *prebuilt, *logs, *profile
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := bench.Run(ctx, opt)
	if res != nil && *update != "" {
		res, err = merge(*update, res, err)
	}
	if res != nil {
		res.Command = "CGO_ENABLED=0 go run ./test/headtohead " + strings.Join(os.Args[1:], " ")
		if werr := report.WriteAll(*out, res); werr != nil && err == nil {
			err = werr
		}
		fmt.Printf("%s", report.Markdown(res))
	}
	return err
}

// merge replaces the runs of old (a results.json) by those of res with
// the same configuration, in old's order, and appends the new ones.
func merge(old string, res *report.Results, runErr error) (*report.Results, error) {
	prev, err := report.ReadJSON(old)
	if err != nil {
		return res, errors.Join(runErr, err)
	}
	fresh := map[string]report.Run{}
	for _, r := range res.Runs {
		fresh[r.Config] = r
	}
	for i, r := range prev.Runs {
		if n, ok := fresh[r.Config]; ok {
			prev.Runs[i] = n
			delete(fresh, r.Config)
		}
	}
	for _, r := range res.Runs {
		if _, ok := fresh[r.Config]; ok {
			prev.Runs = append(prev.Runs, r)
		}
	}
	prev.Commit = res.Commit + " (updated: " + strings.Join(configNames(res.Runs), ", ") + "; earlier runs at " + prev.Commit + ")"
	prev.Targets = bench.Targets(prev.Runs)
	return prev, runErr
}

func configNames(runs []report.Run) []string {
	var s []string
	for _, r := range runs {
		s = append(s, r.Config)
	}
	return s
}

// options prepares the host (QEMU, busybox, kernels) and the run's options.
func options(root, configs string, short bool, kernel, topo, tracePath string, traceLines int) (bench.Options, error) {
	cfgs, err := bench.Lookup(strings.Split(configs, ","))
	if err != nil {
		return bench.Options{}, err
	}
	kernels, err := guest.PrepareHost(filepath.Join(root, "test"))
	if err != nil {
		return bench.Options{}, err
	}
	k, err := kernels.Get(kernel)
	if err != nil {
		return bench.Options{}, err
	}
	if tracePath == "" {
		tracePath = bench.DefaultTrace(root)
	}
	ph := bench.Full()
	if short {
		ph = bench.Short()
	}
	return bench.Options{Root: root, Configs: cfgs, Phases: ph, Kernel: k, Topology: topo,
		Trace: tracePath, TraceLines: traceLines, Log: os.Stderr}, nil
}

// findRoot walks up from the working directory to the module root.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "test", "headtohead")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run from the kvtier repository (no test/headtohead above the working directory)")
		}
		dir = parent
	}
}
