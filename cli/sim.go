package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

func init() { register(newSimCmd) }

type simFlags struct {
	workloads, traces, policies []string
	preset, scenario, mode      string
	quant, reference, format    string
	fastBytes, slowBytes        string
	seed                        int64
	sampleRate                  float64
	epoch, capacityBlocks       int
	reuse, cooldown             int
	decay, headroom             float64
	prefetch, moveBlocks        int
	horizon                     int64
	demo, asJSON, noDecode      bool
	moveLog                     string
}

func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Replay a workload or trace against policies and compare them with LRU and Bélády",
		Long: "Replay synthetic workloads (--workload SPEC) or trace files (--trace FILE: kvtier JSONL, CSV,\n" +
			"Mooncake or LMBench JSONL, detected from the file unless --format says; plain, gzip or zstd,\n" +
			"told by the file's first bytes) against a tier hierarchy and print, for each policy, the\n" +
			"fast-tier hit ratio, modelled latency, bytes moved and the share of the LRU-to-Bélády headroom.\n" +
			"--reference picks the reference rows (LRU and Bélády by default; none for speed).\n" +
			"Blocks mode with lru, fifo, sieve, arc or s3fifo and no Bélády row (--reference none or lru)\n" +
			"streams the trace: it is read once, on one core, while the policies replay it on the others,\n" +
			"and never held in memory.\n\n" +
			"A Mooncake or LMBench request replays its prompt blocks (hash_ids), then the decode blocks its\n" +
			"output appends; --no-decode replays the prompt blocks only, as libCacheSim and most papers\n" +
			"count them. LMBench traces (timestamps in nanoseconds as strings) replay in timestamp order.\n" +
			"Workloads without seed= and the policies take --seed, whose default, 42, every kvtier command\n" +
			"shares.\n\n" +
			"Modes: cache (the seed study's: misses promote), tiering (the daemon's: sampled accesses,\n" +
			"epochs, the planner moves within a budget) and blocks (--capacity-blocks N: one tier of N\n" +
			"unit blocks, hits and misses only). --demo runs a fixed comparison in a few seconds.\n\n" +
			"--fast-bytes and --slow-bytes override the capacities of tier 0 and tier 1 of the preset\n" +
			"and scenario. A trace whose largest block does not fit tier 0 is refused: replaying the\n" +
			"daemon's 2 MiB blocks needs --fast-bytes (kvlab's tier 0 holds tens of kB) or blocks mode.",
		Example: "  kvtier sim --workload adversarial_burst --scenario medium --policy lru,cost_aware,regret_aware:weight=12,horizon=24\n" +
			"  kvtier sim --trace mooncake.jsonl --capacity-blocks 4096 --policy arc --policy s3fifo --json\n" +
			"  kvtier sim --trace gmi_trace.jsonl.zst --no-decode --capacity-blocks 2000 --policy arc --reference none\n" +
			"  kvtier sim --trace recorded.jsonl --mode tiering --preset cxl --fast-bytes 4GiB --policy regret_aware",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSim(cmd, &f) },
	}
	addSimFlags(cmd, &f)
	return cmd
}

// addSimFlags registers sim's flags on cmd, writing into f: the inputs,
// the hierarchy, and each mode's knobs, whose defaults are the daemon's.
func addSimFlags(cmd *cobra.Command, f *simFlags) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.workloads, "workload", nil, "synthetic workload spec, e.g. periodic_reuse:period=11 (repeatable)")
	fl.StringArrayVar(&f.traces, "trace", nil, "trace file, plain, gzip or zstd (repeatable)")
	fl.StringVar(&f.format, "format", "", "format of the --trace files: jsonl, mooncake, lmbench or csv (default: detect each)")
	fl.BoolVar(&f.noDecode, "no-decode", false, "Mooncake and LMBench traces: replay the prompt blocks (hash_ids) only, not the decode blocks")
	fl.StringArrayVar(&f.policies, "policy", nil, "policy spec or comma list (repeatable)")
	fl.StringVar(&f.reference, "reference", "lru,belady", "reference rows added to the policies: lru,belady, lru, belady or none "+
		"(the headroom column needs both; none is the fastest: Bélády's next uses are computed only when it runs)")
	fl.StringVar(&f.preset, "preset", "kvlab", "tier preset: "+strings.Join(sim.Presets(), ", "))
	fl.StringVar(&f.scenario, "scenario", "medium", "capacity scenario: "+strings.Join(sim.Scenarios(), ", "))
	fl.StringVar(&f.mode, "mode", "cache", "simulation mode: cache, tiering or blocks")
	fl.StringVar(&f.fastBytes, "fast-bytes", "", "capacity of tier 0 (the fast tier), overriding the preset's: 2GiB, 512MiB, 4096")
	fl.StringVar(&f.slowBytes, "slow-bytes", "", "capacity of tier 1 (the slow tier), overriding the preset's")
	fl.StringVar(&f.quant, "quant", "fp16", "KV quantisation: fp16, fp8, int8, int4, int2")
	fl.Int64Var(&f.seed, "seed", trace.DefaultSeed, "workload and policy seed, the same default in every command (a workload's seed= wins)")
	fl.Float64Var(&f.sampleRate, "sample-rate", 1, "tiering: share of accesses the sampler sees")
	fl.IntVar(&f.epoch, "epoch", 16, "tiering: accesses per epoch")
	fl.IntVar(&f.moveBlocks, "move-blocks", 0, "tiering: blocks moved per epoch (0 unlimited)")
	fl.Float64Var(&f.decay, "decay", daemon.DefaultDecay, "tiering: heat kept per epoch, in [0, 1) (the daemon's planner decay)")
	fl.IntVar(&f.reuse, "reuse", plan.DefaultReuse, "tiering: promote only blocks read twice in an epoch or in two epochs at most this many apart (0: any; the daemon's reuse_epochs)")
	fl.Float64Var(&f.headroom, "headroom", plan.DefaultHeadroom, "tiering: share of the fast tier kept free for promotions by demoting cold blocks, in [0, 0.5] (the daemon's headroom)")
	fl.IntVar(&f.cooldown, "cooldown-epochs", daemon.DefaultCooldownEpochs, "tiering: epochs a moved block stays put (the daemon's cooldown)")
	fl.IntVar(&f.capacityBlocks, "capacity-blocks", 0, "blocks mode: capacity in unit blocks (implies --mode blocks)")
	fl.IntVar(&f.prefetch, "prefetch", 0, "cache mode: blocks prefetched after a miss")
	fl.Int64Var(&f.horizon, "horizon", 24, "re-promotion horizon in accesses")
	fl.BoolVar(&f.demo, "demo", false, "run the built-in comparison of every online policy against LRU and Bélády (a few seconds)")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	fl.StringVar(&f.moveLog, "move-log", "", "write every block move (miss, evict, cascade, drop, prefetch, free) of the asked policies to FILE: CSV, or JSON lines for .jsonl; gzip for a name ending in .gz, zstd for .zst (cache and blocks modes; never streamed)")
}

// splitPolicies splits comma lists of specs, keeping key=value pieces with
// the spec they belong to: "lru,regret_aware:weight=12,horizon=64".
func splitPolicies(args []string) []string {
	var out []string
	for _, a := range args {
		for _, p := range strings.Split(a, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if strings.Contains(p, "=") && !strings.Contains(p, ":") && len(out) > 0 {
				out[len(out)-1] += "," + p
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

func (f *simFlags) config() (sim.Config, error) {
	mode, err := sim.ParseMode(f.mode)
	if err != nil {
		return sim.Config{}, usageError("--mode: %v", err)
	}
	if f.capacityBlocks < 0 {
		return sim.Config{}, usageError("--capacity-blocks %d: want a number of blocks > 0", f.capacityBlocks)
	}
	if f.capacityBlocks > 0 {
		mode = sim.ModeBlocks
	}
	q, err := sim.ParseQuant(f.quant)
	if err != nil {
		return sim.Config{}, usageError("--quant: %v", err)
	}
	cfg := sim.Config{Mode: mode, Quant: q, Seed: f.seed, SampleRate: f.sampleRate, Epoch: f.epoch,
		MoveBlocks: f.moveBlocks, CapacityBlocks: f.capacityBlocks, Prefetch: f.prefetch, Horizon: f.horizon,
		Decay: f.decay, Reuse: f.reuse, Headroom: f.headroom, Cooldown: int64(f.cooldown) * int64(f.epoch)}
	if mode != sim.ModeBlocks {
		if cfg.Hierarchy, err = sim.NewHierarchy(f.preset, f.scenario); err != nil {
			return cfg, usageError("%v", err)
		}
	}
	if err := f.overrideTiers(&cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, usageError("%v", err)
	}
	return cfg, nil
}

// overrideTiers applies --fast-bytes and --slow-bytes to tiers 0 and 1 of
// the hierarchy and notes them in its scenario ("medium,fast=2GiB"), so
// the results say which capacities they were measured with.
func (f *simFlags) overrideTiers(cfg *sim.Config) error {
	for _, o := range []struct {
		flag, val, label string
		tier             int
	}{{"fast-bytes", f.fastBytes, "fast", 0}, {"slow-bytes", f.slowBytes, "slow", 1}} {
		if o.val == "" {
			continue
		}
		if cfg.Mode == sim.ModeBlocks {
			return usageError("--%s: blocks mode (--capacity-blocks) has a single tier counted in unit blocks; "+
				"drop --%s or --capacity-blocks", o.flag, o.flag)
		}
		n, err := daemon.ParseSize(o.val)
		if err != nil {
			return usageError("--%s: %v", o.flag, err)
		}
		if n <= 0 {
			return usageError("--%s %s: want a capacity > 0", o.flag, o.val)
		}
		cfg.Hierarchy.Tiers[o.tier].Capacity = n
		cfg.Hierarchy.Scenario += "," + o.label + "=" + daemon.FormatSize(n)
	}
	return nil
}

// checkFits refuses a trace whose largest block cannot fit tier 0: no such
// block could ever be in the fast tier, and with a trace of equal blocks
// (the daemon records 2 MiB blocks) every fast hit ratio would be 0.
func checkFits(cfg sim.Config, traces []*sim.Trace) error {
	if cfg.Mode == sim.ModeBlocks {
		return nil
	}
	t0 := cfg.Hierarchy.Tiers[0]
	for _, t := range traces {
		size := cfg.Quant.Scale(t.MaxBlockBytes())
		if t.MaxBlockBytes() == 0 || size <= t0.Capacity {
			continue
		}
		return usageError("%s: its largest block is %s (%d bytes in %s) but tier 0 (%s of preset %s, scenario %s) "+
			"holds %d bytes, so the block can never be in the fast tier; give --fast-bytes SIZE (at least %s) "+
			"or --capacity-blocks N (a fast tier of N blocks of any size)", t.Name, daemon.FormatSize(size), size,
			cfg.Quant, t0.Name, cfg.Hierarchy.Preset, cfg.Hierarchy.Scenario, t0.Capacity, daemon.FormatSize(size))
	}
	return nil
}

// openOptions returns how --trace files are opened: --format, --no-decode.
func (f *simFlags) openOptions() (trace.OpenOptions, error) {
	opt := trace.OpenOptions{Mooncake: trace.MooncakeOptions{NoDecode: f.noDecode}}
	if (f.format != "" || f.noDecode) && len(f.traces) == 0 {
		return opt, usageError("--format and --no-decode apply to --trace files: give --trace FILE")
	}
	if f.format != "" {
		var err error
		if opt.Format, err = trace.ParseFormat(f.format); err != nil {
			return opt, usageError("--format: %v", err)
		}
	}
	return opt, nil
}

// namedOpener is a workload or trace file and how to read it.
type namedOpener struct {
	name string
	open sim.Opener
}

// openers returns the workloads and trace files named by the flags, in
// order, checking the workload specs.
func (f *simFlags) openers() ([]namedOpener, error) {
	opt, err := f.openOptions()
	if err != nil {
		return nil, err
	}
	var out []namedOpener
	for _, w := range f.workloads {
		ws, err := trace.ParseWorkloadSeed(w, f.seed)
		if err != nil {
			return nil, usageError("--workload: %v", err)
		}
		if _, err := trace.LookupWorkload(ws.Name); err != nil {
			return nil, usageError("--workload: %v", err)
		}
		out = append(out, namedOpener{ws.String(), func() (trace.Reader, error) { return trace.NewWorkload(ws.Name, ws.Params) }})
	}
	for _, path := range f.traces {
		out = append(out, namedOpener{path, func() (trace.Reader, error) { return trace.OpenWith(path, opt) }})
	}
	return out, nil
}

// simTraces prepares the workloads and trace files named by the flags.
func (f *simFlags) simTraces() ([]*sim.Trace, error) {
	opens, err := f.openers()
	if err != nil {
		return nil, err
	}
	out := make([]*sim.Trace, 0, len(opens))
	for _, o := range opens {
		t, err := sim.Prepare(o.name, o.open)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// printResults prints one comparison table per workload/trace and setting.
// Every column has a fixed number of decimals: ratios 3, latencies 3 (ms),
// bytes moved 2 (in a binary unit, as in the plots), headroom 1 (%). Blocks mode models no latency or bytes: those columns show "-". The
// Bélády row of a tiering comparison (run in cache mode on the same tiers,
// see sim.Compare) stays in its table, marked "(cache mode)".
func printResults(w io.Writer, rs []sim.Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	last := ""
	for i, r := range rs {
		head := fmt.Sprintf("%s  mode=%s preset=%s scenario=%s quant=%s", r.Workload, r.Mode, r.Preset, r.Scenario, r.Quant)
		if r.Mode == "blocks" {
			head = fmt.Sprintf("%s  mode=blocks", r.Workload)
		}
		name := r.Policy
		if r.Policy == sim.RefBelady && i > 0 && rs[i-1].Mode != r.Mode && rs[i-1].Workload == r.Workload {
			head, name = last, name+" ("+r.Mode+" mode)"
		}
		if head != last {
			if last != "" {
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "%s\n", head)
			fmt.Fprintln(tw, "policy\taccesses\tfast hit\tmean ms\tp99 ms\tmoved\tevictions\tre-promo\theadroom\t")
			last = head
		}
		hr := "-"
		if r.Headroom != nil {
			hr = fmt.Sprintf("%.1f%%", 100**r.Headroom)
		}
		mean, p99, moved := "-", "-", "-"
		if r.Mode != "blocks" {
			mean, p99 = fmt.Sprintf("%.3f", r.MeanLatencyMs), fmt.Sprintf("%.3f", r.P99LatencyMs)
			moved = formatBytes(r.BytesDemand + r.BytesPrefetch)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%s\t%s\t%d\t%.3f\t%s\t\n", name, r.Accesses, r.FastHitRatio,
			mean, p99, moved, r.Evictions, r.RepromotionRate, hr)
	}
	return tw.Flush()
}

// formatBytes prints a byte count with a binary unit (the plots' MiB)
// and two decimals: 6.49 MiB, 953.12 KiB, 40.47 TiB (below 1 KiB: 512 B).
func formatBytes(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if v < 1023.995 || u == "TiB" { // 1023.995 KiB prints as 1.00 MiB
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.2f %s", v, u)
		}
		v /= 1024
	}
	return ""
}

// demoPolicies are the online policies of the demo, those registered.
func demoPolicies() []string {
	var out []string
	for _, in := range policy.List() {
		if !in.Offline && !in.Wrapper && in.Name != "lru" {
			out = append(out, in.Name)
		}
	}
	return out
}

// runDemo compares every registered online policy on the seed study's
// adversarial_burst and chat_continuation under medium capacity (cache
// mode), and on the embedded Mooncake conversation trace with a fast tier
// of 2,048 blocks (blocks mode) and in tiering mode on the cxl preset.
func runDemo(w io.Writer, asJSON bool) error {
	start := time.Now()
	pols := demoPolicies()
	h, _ := sim.NewHierarchy("kvlab", "medium")
	var all []sim.Result
	var errs []error
	// compare keeps the rows of a partly failed comparison and its error.
	compare := func(cfg sim.Config, pols []string, t *sim.Trace) error {
		rs, err := sim.Compare(cfg, pols, t)
		if err != nil && len(rs) == 0 {
			return err
		}
		errs = append(errs, err)
		all = append(all, rs...)
		return nil
	}
	for _, wl := range []string{"adversarial_burst", "chat_continuation"} {
		ws, _ := trace.ParseWorkload(wl)
		ws.Params.Seed = 42
		t, err := sim.Prepare(ws.String(), func() (trace.Reader, error) { return trace.NewWorkload(ws.Name, ws.Params) })
		if err != nil {
			return err
		}
		if err := compare(sim.Config{Hierarchy: h, Seed: 42}, pols, t); err != nil {
			return err
		}
	}
	mc, err := sim.Prepare(sim.MooncakeSampleName, sim.MooncakeSample(trace.MooncakeOptions{}))
	if err != nil {
		return err
	}
	if err := compare(sim.Config{Mode: sim.ModeBlocks, CapacityBlocks: 2048, Seed: 42}, pols, mc); err != nil {
		return err
	}
	cxl, _ := sim.NewHierarchy("cxl", "medium")
	if err := compare(sim.Config{Mode: sim.ModeTiering, Hierarchy: cxl, Seed: 42, Epoch: 256, SampleRate: 0.5,
		MoveBlocks: 64}, []string{"regret_aware", "arc", "s3fifo"}, mc); err != nil {
		return err
	}
	if asJSON {
		if err := json.NewEncoder(w).Encode(all); err != nil {
			return err
		}
		return errors.Join(errs...)
	}
	fmt.Fprintln(w, "kvtier simulator demo: every registered online policy against LRU and Bélády's offline optimum")
	fmt.Fprintln(w, "(headroom = share of the LRU-to-Bélády hit-ratio gap a policy captures)")
	fmt.Fprintln(w)
	if err := printResults(w, all); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d runs in %.2fs\n", len(all), time.Since(start).Seconds())
	return errors.Join(errs...)
}
