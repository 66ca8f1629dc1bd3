package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

func init() { register(newBenchCmd) }

type benchRow struct {
	Trace    string  `json:"trace"`
	Policy   string  `json:"policy"`
	Accesses int     `json:"accesses"`
	Seconds  float64 `json:"seconds"`
	PerSec   float64 `json:"accesses_per_second"`
}

func newBenchCmd() *cobra.Command {
	var (
		pols     []string
		accesses int
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulated accesses per second per policy and the regret grid's time",
		Long: "Replay the embedded Mooncake conversation trace (blocks mode, 4,096 blocks) and a synthetic\n" +
			"mixed_locality trace (cache mode) with each policy on one goroutine, and run the regret\n" +
			"ablation grid on one worker. Each trace is replayed once with LRU, untimed, before the\n" +
			"policies are timed, so the first row does not pay for warming up. Figures are wall time\n" +
			"on one core: on a loaded host they understate; compare ratios within one run. The\n" +
			"daemon's scale figures (bytes per tracked block, epoch decision time, hint throughput)\n" +
			"are Go benchmarks: `make bench-scale` runs them against their targets (README, \"Daemon scale\").",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd, splitPolicies(pols), accesses, asJSON)
		},
	}
	cmd.Flags().StringArrayVar(&pols, "policy", []string{"lru,arc,s3fifo,regret_aware"}, "policy specs (repeatable or comma list)")
	cmd.Flags().IntVar(&accesses, "accesses", 10_000_000, "accesses of the synthetic trace")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// runBench times each policy in list on the Mooncake sample and on a
// synthetic trace of accesses accesses, then the regret grid on one worker,
// and prints the figures as a table or, with asJSON, as JSON. The policy
// specs are checked first so a typo fails before minutes of replay.
func runBench(cmd *cobra.Command, list []string, accesses int, asJSON bool) error {
	for _, p := range list {
		if _, err := policy.New(p, policy.Env{}); err != nil {
			return usageError("--policy: %v", err)
		}
	}
	mc, err := sim.Prepare(sim.MooncakeSampleName, sim.MooncakeSample(trace.MooncakeOptions{}))
	if err != nil {
		return err
	}
	spec := fmt.Sprintf("mixed_locality:pages=100000,steps=%d,seed=1", accesses)
	syn, err := sim.Prepare(spec, func() (trace.Reader, error) { return trace.NewWorkloadSpec(spec) })
	if err != nil {
		return err
	}
	rows, err := benchRuns(list, mc, syn)
	if err != nil {
		return err
	}
	g, _ := sim.GridPreset("regret")
	start := time.Now()
	grid, err := sim.RunGrid(g, 1)
	if err != nil {
		return err
	}
	gridSec := time.Since(start).Seconds()
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{
			"runs": rows, "regret_grid_runs": len(grid), "regret_grid_seconds": gridSec})
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "trace\tpolicy\taccesses\tseconds\taccesses/s")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3gM\n", r.Trace, r.Policy, r.Accesses, r.Seconds, r.PerSec/1e6)
	}
	fmt.Fprintf(tw, "\nregret grid: %d runs in %.3fs on one worker\n", len(grid), gridSec)
	return tw.Flush()
}

// benchCase is one trace and the configuration bench replays it with.
type benchCase struct {
	t   *sim.Trace
	cfg sim.Config
}

// benchRuns times each policy on the Mooncake sample (blocks mode, 4,096
// blocks) and on the synthetic trace (cache mode, the kvlab base hierarchy
// at 32 times its capacities). Each case is first replayed once with LRU,
// untimed, so that the first policy timed does not also pay for faulting
// in the trace and the lazily built state it shares with the others.
func benchRuns(list []string, mc, syn *sim.Trace) ([]benchRow, error) {
	h, _ := sim.NewHierarchy("kvlab", "base")
	for i := range h.Tiers {
		h.Tiers[i].Capacity *= 32
	}
	cases := []benchCase{
		{mc, sim.Config{Mode: sim.ModeBlocks, CapacityBlocks: 4096}},
		{syn, sim.Config{Hierarchy: h}},
	}
	for _, c := range cases {
		c.cfg.Policy = "lru"
		if _, err := sim.Run(c.cfg, c.t); err != nil {
			return nil, fmt.Errorf("warming up on %s: %w", c.t.Name, err)
		}
	}
	var rows []benchRow
	for _, p := range list {
		for _, c := range cases {
			c.cfg.Policy = p
			runtime.GC() // the previous run's garbage is not this one's to collect
			start := time.Now()
			if _, err := sim.Run(c.cfg, c.t); err != nil {
				return nil, err
			}
			s := time.Since(start).Seconds()
			rows = append(rows, benchRow{Trace: c.t.Name, Policy: p, Accesses: c.t.Accesses(), Seconds: s,
				PerSec: float64(c.t.Accesses()) / s})
		}
	}
	return rows, nil
}
