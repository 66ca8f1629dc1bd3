// Command hhwork is the head-to-head benchmark's guest workload: a 2 MiB
// block arena read in (a) shifting hot sets, (b) a regret phase that
// revisits blocks soon after they left DRAM and (c) a KV pool replaying a
// Mooncake trace, while it samples where its pages are with move_pages
// queries. It prints one JSON document (test/headtohead/result.Report) on
// stdout and progress on stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// config is the workload's flags.
type config struct {
	arenaMiB, blockKiB int
	noHuge             bool
	seed               int64
	daemon             string
	hints              bool
	sample             time.Duration

	hot        int
	t1, t2, t3 time.Duration

	regretBlocks, otherBlocks, cycles int
	warm, cool, burst, gap            time.Duration

	trace      string
	rate       float64
	replayTime time.Duration
	slots      int
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("hhwork", flag.ContinueOnError)
	fs.IntVar(&c.arenaMiB, "arena-mib", 512, "arena size in MiB")
	fs.IntVar(&c.blockKiB, "block-kib", 2048, "block size in KiB")
	fs.BoolVar(&c.noHuge, "nohugepage", true, "madvise(MADV_NOHUGEPAGE) the arena before the fill")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the block sets")
	fs.StringVar(&c.daemon, "daemon", "", "kvtier API socket: register the arena there")
	fs.BoolVar(&c.hints, "hints", false, "send an access hint for every block read (with -daemon)")
	fs.DurationVar(&c.sample, "sample", 250*time.Millisecond, "placement sampling interval")
	fs.IntVar(&c.hot, "hot", 32, "blocks in each hot set (A and B)")
	fs.DurationVar(&c.t1, "t1", 60*time.Second, "reading set A (0 skips the shifting phase)")
	fs.DurationVar(&c.t2, "t2", 60*time.Second, "then set B")
	fs.DurationVar(&c.t3, "t3", 30*time.Second, "then set A again")
	fs.IntVar(&c.regretBlocks, "regret-blocks", 16, "blocks of the revisited set C")
	fs.IntVar(&c.otherBlocks, "regret-other", 72, "blocks read between revisits (set D)")
	fs.IntVar(&c.cycles, "regret-cycles", 4, "revisits of C (0 skips the regret phase)")
	fs.DurationVar(&c.warm, "regret-warm", 10*time.Second, "reading C alone first")
	fs.DurationVar(&c.cool, "regret-cool", 30*time.Second, "longest cool-off reading D before the first revisit")
	fs.DurationVar(&c.burst, "regret-burst", 2*time.Second, "length of a revisit of C")
	fs.DurationVar(&c.gap, "regret-gap", 10*time.Second, "reading D between revisits")
	fs.StringVar(&c.trace, "trace", "", "Mooncake JSONL trace to replay (empty skips the replay)")
	fs.Float64Var(&c.rate, "replay-rate", 10, "trace replay pace in block reads a second")
	fs.DurationVar(&c.replayTime, "replay-time", 60*time.Second, "trace replay length")
	fs.IntVar(&c.slots, "replay-slots", 0, "KV pool slots (0: every arena block)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.hints && c.daemon == "" {
		return c, fmt.Errorf("-hints needs -daemon")
	}
	return c, nil
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "hhwork:", err)
		os.Exit(2)
	}
	rep, err := run(cfg)
	if rep != nil {
		if e := json.NewEncoder(os.Stdout).Encode(rep); e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hhwork:", err)
		os.Exit(1)
	}
}

// logf writes a progress line on stderr (the guest console's log).
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hhwork: "+format+"\n", args...)
}
