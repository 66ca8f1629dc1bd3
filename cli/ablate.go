package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/sim/lab"
)

func init() { register(newAblateCmd) }

func newAblateCmd() *cobra.Command {
	var o ablateOptions
	cmd := &cobra.Command{
		Use:   "ablate",
		Short: "Run an ablation grid and write raw JSON, CSV summaries, metadata and SVG plots",
		Long: "Run every policy x parameter x scenario x workload x quantisation x seed of a grid, a\n" +
			"fresh policy per run, on all cores, and write into --output-dir:\n" +
			"  raw.json        every run's measures\n" +
			"  summary.csv     one row per run\n" +
			"  aggregate.csv   mean and standard deviation over seeds\n" +
			"  metadata.json   the grid, tiers, version and commit\n" +
			"  *.svg           per workload: latency, hit ratio and bytes moved with error bars\n" +
			"and, with --plots DIR, the lab's four plots there: latency_vs_horizon.svg,\n" +
			"hit_rate_vs_weight.svg, latency_vs_bytes.svg and failure_case.svg (the cell where the best\n" +
			"regret_aware variant gains least over LRU). In the lab model summary.csv's misses are cold\n" +
			"misses (the lab's miss_count, tier-0 misses, is in lab_results.csv) and its p99, re-promotion\n" +
			"and utilisation fields are empty (null in raw.json): that model does not measure them.\n\n" +
			"Presets: regret (the seed study's ablation: lru, cost_aware and regret_aware at weights\n" +
			"{1,6,12} x horizons {8,24,64}, medium and constrained, chat_continuation, periodic_reuse,\n" +
			"adversarial_burst, seeds 7/42/91, prefetch off), baselines, quant, and lab: the same\n" +
			"ablation in the lab-compatible model (kv-hierarchy-lab's generators, cost model and\n" +
			"policies; see package policy/sim/lab), which --check compares with the lab's published\n" +
			"figures and --decompose walks to kvtier's model one change at a time, and lab-sweep: the lab's\n" +
			"default sweep (210 runs, some with prefetch), for --check with its default_sweep.csv. A grid file is JSON\n" +
			"(with \"mode\": \"lab\" it runs in the lab model: lab workloads such as long_tail_mix or\n" +
			"adversarial_prefetch, lab policies or kvtier's as \"kvtier:SPEC\"):\n" +
			`  {"name": "mine", "preset": "kvlab", "mode": "cache",` + "\n" +
			`   "policies": [{"name": "lru"}, {"name": "regret_aware", "params": {"weight": ["6", "12"]}}],` + "\n" +
			`   "scenarios": ["medium"], "workloads": ["adversarial_burst"], "quants": ["fp16", "int4"],` + "\n" +
			`   "seeds": [7, 42, 91]}`,
		Example: "  kvtier ablate --preset regret --output-dir results/regret --plots results/regret/plots\n  kvtier ablate --config grid.json --output-dir out\n" +
			"  kvtier ablate --preset lab --check policy/sim/lab/testdata/regret_ablation.csv\n" +
			"  kvtier ablate --preset lab --decompose\n" +
			"  kvtier ablate --preset lab-sweep --check policy/sim/lab/testdata/default_sweep.csv\n" +
			"  kvtier ablate --config policy/sim/results/regret/lab-prefetch.json --prefetch 2 -o out",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.presetSet = cmd.Flags().Changed("preset")
			return runAblate(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.preset, "preset", "regret", "built-in grid: regret, baselines, quant, lab, or lab-sweep (the lab's default sweep, for --check)")
	fl.StringVar(&o.check, "check", "", "with --preset lab: compare with the lab's figures (CSV: its summary.csv or testdata/regret_ablation.csv)")
	fl.StringVar(&o.config, "config", "", "grid file (JSON)")
	fl.BoolVar(&o.decompose, "decompose", false, "with --preset lab: print (Markdown) each stage from the lab's model to kvtier's")
	fl.StringVarP(&o.outDir, "output-dir", "o", "", "directory for the artifacts")
	fl.StringVar(&o.plots, "plots", "", "directory for the lab's four plots: latency vs horizon, hit rate vs weight, latency vs bytes moved, failure case (SVG)")
	fl.IntVar(&o.prefetch, "prefetch", 0, "with --preset lab or a lab grid: prefetch depth, the lab's max_prefetch_candidates "+
		"(0 off): how many of the pages the policy proposes after an access are prefetched (the lab's predictive proposes)")
	fl.StringVar(&o.moveLog, "move-log", "", "with --preset lab or a lab grid: write every page move of every run to FILE "+
		"(CSV, or JSON lines for .jsonl; gzip for .gz, zstd for .zst), as sim --move-log does; a run's trace is "+
		"named workload/scenario/quant/seed=N")
	fl.IntVar(&o.workers, "workers", 0, "parallel runs (0: one per CPU)")
	fl.BoolVar(&o.asJSON, "json", false, "print JSON")
	return cmd
}

// ablateOptions are the flags of kvtier ablate.
type ablateOptions struct {
	preset, config, outDir, check string
	plots, moveLog                string
	workers, prefetch             int
	asJSON, decompose, presetSet  bool
}

// runAblate runs a grid (or the lab preset) and writes its artifacts.
func runAblate(cmd *cobra.Command, o ablateOptions) error {
	lo := labOptions{outDir: o.outDir, check: o.check, moveLog: o.moveLog, plots: o.plots, decompose: o.decompose,
		asJSON: o.asJSON, prefetch: o.prefetch}
	if o.preset == "lab" && o.config == "" {
		return runLabAblate(cmd, lab.Ablation(), lo)
	}
	if o.preset == "lab-sweep" && o.config == "" {
		return runLabSweep(cmd, lo)
	}
	g, err := ablateGrid(o)
	if err != nil {
		return err
	}
	if g.Mode == sim.ModeLab {
		lg, err := lab.GridFromSim(g)
		if err != nil {
			return usageError("%v", err)
		}
		return runLabAblate(cmd, lg, lo)
	}
	if o.check != "" || o.decompose || o.prefetch != 0 || o.moveLog != "" {
		return usageError("--check, --decompose, --prefetch and --move-log need --preset lab or a grid file with mode lab")
	}
	if o.outDir == "" && o.plots == "" {
		return usageError("--output-dir or --plots is required")
	}
	start := time.Now()
	rs, err := sim.RunGrid(g, o.workers)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	v, c := Version()
	if v == "dev" {
		fmt.Fprintln(cmd.ErrOrStderr(), "kvtier: warning: this binary has no version stamped "+
			"(metadata.json will say version dev, commit unknown); build it with `make build`")
	}
	meta := sim.Metadata{Grid: g, Version: v, Commit: c, Workers: o.workers,
		Command: "kvtier " + strings.Join(os.Args[1:], " ")}
	files, err := writeAblation(o.outDir, o.plots, meta, rs)
	if err != nil {
		return err
	}
	if o.asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{
			"grid": g.Name, "runs": len(rs), "seconds": elapsed.Seconds(), "files": files})
	}
	fmt.Fprintf(cmd.OutOrStdout(), "grid %s: %d runs in %.3fs, %d files in %s\n",
		g.Name, len(rs), elapsed.Seconds(), len(files), strings.Join(nonEmpty(o.outDir, o.plots), " and "))
	return nil
}

// ablateGrid returns the grid of --config or --preset (not a lab
// preset), or a usage error.
func ablateGrid(o ablateOptions) (sim.Grid, error) {
	switch {
	case o.config != "" && o.presetSet:
		return sim.Grid{}, usageError("give --preset or --config, not both")
	case o.config != "":
		g, err := sim.LoadGrid(o.config)
		if err != nil {
			return sim.Grid{}, usageError("%v", err)
		}
		return g, nil
	}
	g, err := sim.GridPreset(o.preset)
	if err != nil {
		return sim.Grid{}, usageError("--preset %q: want regret, baselines, quant, lab or lab-sweep", o.preset)
	}
	return g, nil
}

// writeAblation writes the artifacts into outDir and the study plots into
// plots, each when set, and returns the files written.
func writeAblation(outDir, plots string, meta sim.Metadata, rs []sim.Result) ([]string, error) {
	var files []string
	if outDir != "" {
		fs, err := sim.WriteArtifacts(outDir, meta, rs)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	if plots != "" {
		fs, err := sim.WriteStudyPlots(plots, rs)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// nonEmpty returns the non-empty strings of ss.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
