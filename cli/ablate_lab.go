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

// labOptions are the flags of ablate --preset lab.
type labOptions struct {
	outDir, check     string
	plots             string
	decompose, asJSON bool
}

// runLabAblate runs the lab-compatible ablation (ablate --preset lab):
// it writes the usual artifacts when outDir is set and compares the runs
// with published figures when check is set. Runs the figures have and the
// results do not reproduce make the command fail (exit 1) after the report.
// With decompose it prints the stages from the lab's model to kvtier's
// instead.
func runLabAblate(cmd *cobra.Command, g lab.Grid, o labOptions) error {
	if o.decompose {
		steps, err := lab.Decompose(g)
		if err != nil {
			return err
		}
		if o.asJSON {
			return json.NewEncoder(cmd.OutOrStdout()).Encode(steps)
		}
		return lab.WriteSteps(cmd.OutOrStdout(), steps)
	}
	outDir, check, asJSON := o.outDir, o.check, o.asJSON
	if outDir == "" && check == "" && o.plots == "" {
		return usageError("--preset lab needs --output-dir, --plots, --check or --decompose")
	}
	start := time.Now()
	rs, err := g.Run()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	out := map[string]any{"grid": g.Name, "runs": len(rs), "seconds": elapsed.Seconds()}
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
	return lab.Check(rs, figs), nil
}

func writeLabArtifacts(dir, plots string, g lab.Grid, rs []lab.Result) ([]string, error) {
	srs := make([]sim.Result, len(rs))
	for i, r := range rs {
		srs[i] = r.Sim()
	}
	v, c := Version()
	meta := sim.Metadata{Grid: g.SimGrid(), Version: v, Commit: c, Workers: 1,
		Command: "kvtier " + strings.Join(os.Args[1:], " ")}
	return writeAblation(dir, plots, meta, srs)
}
