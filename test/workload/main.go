package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("workload", flag.ContinueOnError)
	var cfg config
	fs.IntVar(&cfg.arenaMiB, "arena-mib", 384, "size of the first tenant's arena in MiB")
	fs.IntVar(&cfg.blockKiB, "block-kib", 2048, "KV block size in KiB")
	fs.IntVar(&cfg.tenant2MiB, "tenant2-mib", 64, "size of the second tenant's arena in MiB")
	fs.BoolVar(&cfg.noHuge, "nohugepage", false, "madvise(MADV_NOHUGEPAGE) the arenas before filling them")
	fs.Float64Var(&cfg.hotFrac, "hot-frac", 0.25, "share of each arena's blocks in its hot set")
	fs.IntVar(&cfg.rounds, "rounds", 5, "read rounds per phase")
	fs.DurationVar(&cfg.interval, "interval", 200*time.Millisecond, "pause between read rounds")
	fs.IntVar(&cfg.burstBlocks, "burst-blocks", 16, "demoted blocks the burst phase revisits")
	fs.IntVar(&cfg.pinnedBlocks, "pinned-blocks", 1, "leading blocks registered as pinned")
	fs.StringVar(&cfg.tenant, "tenant", "a", "tenant of the first arena (the second arena's is b)")
	fs.BoolVar(&cfg.deferRegister, "defer-register", false, "with -daemon: register the first arena only on the control command register")
	fs.StringVar(&cfg.daemon, "daemon", "", "kvtier daemon API socket to register with (empty: no daemon)")
	phases := fs.String("phases", strings.Join(phaseNames, ","), "phases to run in order")
	control := fs.String("control", "", "serve line commands on this unix socket instead of running -phases")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if cfg.hotFrac <= 0 || cfg.hotFrac > 1 || cfg.rounds < 1 || cfg.arenaMiB < 1 || cfg.tenant2MiB < 1 {
		fmt.Fprintln(os.Stderr, "workload: -hot-frac must be in (0,1], -rounds, -arena-mib and -tenant2-mib at least 1")
		return 2
	}
	w := newWorkload(cfg)
	defer w.reg.close()
	var rep Report
	err := w.setup()
	switch {
	case err != nil:
		rep = w.finish(err)
	case *control != "":
		rep, err = w.serve(*control)
		if err != nil {
			rep = w.finish(err)
		}
	default:
		var errs []error
		for _, name := range strings.Split(*phases, ",") {
			if name = strings.TrimSpace(name); name == "" {
				continue
			}
			if _, err := w.runPhase(name); err != nil {
				errs = append(errs, fmt.Errorf("phase %s: %w", name, err))
			}
		}
		rep = w.finish(errs...)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(rep); err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		return 1
	}
	if !rep.OK {
		return 1
	}
	return 0
}
