package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/sim/lab"
)

// labOptions are the flags of ablate --preset lab.
type labOptions struct {
	outDir, check     string
	moveLog           string
	plots             string
	decompose, asJSON bool
	prefetch          int
}

// runLabAblate runs the lab-compatible ablation (ablate --preset lab):
// it writes the usual artifacts when outDir is set and compares the runs
// with published figures when check is set. Runs the figures have and the
// results do not reproduce make the command fail (exit 1) after the report.
// With decompose it prints the stages from the lab's model to kvtier's
// instead. With prefetch every run prefetches at that depth.
func runLabAblate(cmd *cobra.Command, g lab.Grid, o labOptions) (err error) {
	switch {
	case o.prefetch < 0:
		return usageError("--prefetch %d: want a depth >= 0", o.prefetch)
	case o.prefetch > 0 && o.decompose:
		return usageError("--decompose runs without prefetch; drop --prefetch")
	}
	g.Prefetch = o.prefetch
	if o.moveLog != "" && o.decompose {
		return usageError("--move-log logs the grid's runs; --decompose runs none of them")
	}
	if o.decompose {
		return runLabDecompose(cmd, g, o.asJSON)
	}
	outDir, check, asJSON := o.outDir, o.check, o.asJSON
	if outDir == "" && check == "" && o.plots == "" {
		return usageError("--preset lab needs --output-dir, --plots, --check or --decompose")
	}
	if o.moveLog != "" {
		mw, merr := newMoveWriter(o.moveLog)
		if merr != nil {
			return withCode(ExitError, fmt.Errorf("--move-log: %w", merr))
		}
		g.Moves = mw
		defer func() { err = closeMoveLog(err, mw, o.moveLog) }()
	}
	start := time.Now()
	rs, err := g.Run()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	out := map[string]any{"grid": g.Name, "runs": len(rs), "seconds": elapsed.Seconds(), "prefetch_depth": g.Prefetch}
	reportPrefetch(cmd, out, g.Prefetch, rs, asJSON)
	if outDir != "" || o.plots != "" {
		files, err := writeLabArtifacts(outDir, o.plots, g, rs)
		if err != nil {
			return err
		}
		out["files"] = files
		if !asJSON {
			fmt.Fprintf(cmd.OutOrStdout(), "grid %s: %d runs in %.3fs, %d files in %s\n",
				g.Name, len(rs), elapsed.Seconds(), len(files), strings.Join(nonEmpty(outDir, o.plots), " and "))
		}
	}
	if check == "" {
		if asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
		}
		return nil
	}
	rep, err := checkLab(check, g, rs)
	if err != nil {
		return err
	}
	return writeCheck(cmd, out, rep, asJSON)
}

// writeCheck prints a check's report (or out with it, as JSON) and fails
// (exit 1) when a published run was not reproduced.
func writeCheck(cmd *cobra.Command, out map[string]any, rep lab.Report, asJSON bool) error {
	var err error
	if asJSON {
		out["check"] = rep
		err = json.NewEncoder(cmd.OutOrStdout()).Encode(out)
	} else {
		err = rep.Write(cmd.OutOrStdout())
	}
	if err == nil && rep.Matched < rep.Figures {
		err = withCode(ExitError, fmt.Errorf("%d of %d published runs not reproduced", rep.Figures-rep.Matched, rep.Figures))
	}
	return err
}

// runLabSweep runs the lab's default sweep (210 runs: five scenarios, some
// with prefetch, seven workloads, six policies; ablate --preset lab-sweep)
// and compares it with the figures of --check, the lab's default_sweep.csv.
func runLabSweep(cmd *cobra.Command, o labOptions) error {
	if o.check == "" || o.outDir != "" || o.plots != "" || o.decompose || o.prefetch != 0 || o.moveLog != "" {
		return usageError("--preset lab-sweep runs the lab's default sweep, with its own prefetch settings, " +
			"for --check FILE (policy/sim/lab/testdata/default_sweep.csv) only (no --move-log, --output-dir, --plots)")
	}
	start := time.Now()
	rs, err := lab.DefaultSweep().Run()
	if err != nil {
		return err
	}
	out := map[string]any{"grid": "lab-sweep", "runs": len(rs), "seconds": time.Since(start).Seconds()}
	rep, err := checkLab(o.check, lab.Grid{}, rs)
	if err != nil {
		return err
	}
	return writeCheck(cmd, out, rep, o.asJSON)
}

// runLabDecompose prints the stages from the lab's model to kvtier's.
func runLabDecompose(cmd *cobra.Command, g lab.Grid, asJSON bool) error {
	steps, err := lab.Decompose(g)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(steps)
	}
	return lab.WriteSteps(cmd.OutOrStdout(), steps)
}

// reportPrefetch adds the prefetch totals of a run with prefetch on to
// out and, unless asJSON, prints them.
func reportPrefetch(cmd *cobra.Command, out map[string]any, depth int, rs []lab.Result, asJSON bool) {
	if depth == 0 {
		return
	}
	pf := prefetchTotals(rs)
	out["prefetch"] = pf
	if !asJSON {
		fmt.Fprintf(cmd.OutOrStdout(), "prefetch depth %d: %d issued, %d useful, %d wasted (usefulness %.3f), %d bytes\n",
			depth, pf.Requests, pf.Useful, pf.Wasted, pf.Usefulness, pf.Bytes)
	}
}

func checkLab(path string, g lab.Grid, rs []lab.Result) (lab.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return lab.Report{}, err
	}
	defer f.Close()
	figs, err := lab.ReadFigures(f, g)
	if err != nil {
		return lab.Report{}, withCode(ExitUsage, fmt.Errorf("%s: %w", path, err))
	}
	if n, first := outsideRuns(rs, figs); n > 0 {
		return lab.Report{}, usageError("%s: %d of its %d runs are not among the %d this grid ran (the first: seed %d, "+
			"scenario %s, workload %s, policy %s): check a file with the grid that wrote it (the lab's "+
			"default_sweep.csv with --preset lab-sweep)", path, n, len(figs), len(rs), first.Seed, first.Scenario,
			first.Workload, first.Policy)
	}
	return lab.Check(rs, figs), nil
}

// outsideRuns counts the figures that no run has (the same seed,
// scenario, workload and policy) and returns the first of them.
func outsideRuns(rs []lab.Result, figs []lab.Figure) (int, lab.Figure) {
	type key struct {
		seed                       int64
		scenario, workload, policy string
	}
	ran := make(map[key]bool, len(rs))
	for _, r := range rs {
		ran[key{r.Seed, r.Scenario, r.Workload, r.Policy}] = true
	}
	n, first := 0, lab.Figure{}
	for _, f := range figs {
		if !ran[key{f.Seed, f.Scenario, f.Workload, f.Policy}] {
			if n == 0 {
				first = f
			}
			n++
		}
	}
	return n, first
}

// prefetchSum is the prefetch figures summed over a grid's runs.
type prefetchSum struct {
	Requests   int64   `json:"prefetch_requests"`
	Useful     int64   `json:"useful_prefetches"`
	Wasted     int64   `json:"wasted_prefetches"`
	Usefulness float64 `json:"prefetch_usefulness"`
	Bytes      int64   `json:"prefetch_bytes_moved"`
}

func prefetchTotals(rs []lab.Result) prefetchSum {
	var s prefetchSum
	for _, r := range rs {
		s.Requests += r.PrefetchRequests
		s.Useful += r.PrefetchUseful
		s.Wasted += r.PrefetchWasted
		s.Bytes += r.PrefetchBytes
	}
	if s.Requests > 0 {
		s.Usefulness = float64(s.Useful) / float64(s.Requests)
	}
	return s
}

// writeLabArtifacts writes the simulator's artifacts and, into dir, the
// lab's per-run CSV (lab.ResultsFile) with the prefetch figures.
func writeLabArtifacts(dir, plots string, g lab.Grid, rs []lab.Result) ([]string, error) {
	srs := make([]sim.Result, len(rs))
	for i, r := range rs {
		srs[i] = r.Sim()
	}
	v, c := Version()
	meta := sim.Metadata{Grid: g.SimGrid(), Version: v, Commit: c, Workers: 1,
		Command: "kvtier " + strings.Join(os.Args[1:], " ")}
	files, err := writeAblation(dir, plots, meta, srs)
	if err != nil || dir == "" {
		return files, err
	}
	path := filepath.Join(dir, lab.ResultsFile)
	var b bytes.Buffer
	if err := lab.WriteResults(&b, rs); err != nil {
		return files, err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return files, fmt.Errorf("writing %s: %w", path, err)
	}
	return append(files, path), nil
}

// closeMoveLog closes a move log and joins its error to err: a log that
// could not be written in full (a full disk) fails the command, so that a
// truncated log does not pass for a whole one.
func closeMoveLog(err error, mw *moveWriter, path string) error {
	if cerr := mw.Close(); cerr != nil {
		return errors.Join(err, withCode(ExitError, fmt.Errorf("--move-log %s: %w", path, cerr)))
	}
	return err
}
