package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
)

// compare runs the comparison of every workload and trace: streamed when
// sim.Streamable says so (blocks mode with policies of a compact form and
// no Bélády: the trace is read once, never kept), else prepared. It
// returns the rows, each comparison's error, and an error that stops the
// command.
func (f *simFlags) compare(cfg sim.Config, pols []string, refs sim.References) ([]sim.Result, []error, error) {
	var all []sim.Result
	var errs []error
	if cfg.Moves == nil && sim.Streamable(cfg, pols, refs) {
		opens, err := f.openers()
		if err != nil {
			return nil, nil, err
		}
		for _, o := range opens {
			// A policy that panicked fails its row only: the others stay.
			rs, err := sim.CompareStream(cfg, pols, refs, o.name, o.open)
			if err != nil && len(rs) == 0 {
				return nil, nil, err
			}
			errs = append(errs, err)
			all = append(all, rs...)
		}
		return all, errs, nil
	}
	traces, err := f.simTraces()
	if err != nil {
		return nil, nil, err
	}
	if err := checkFits(cfg, traces); err != nil {
		return nil, nil, err
	}
	for _, t := range traces {
		rs, err := sim.CompareWith(cfg, pols, refs, t)
		if err != nil && len(rs) == 0 {
			return nil, nil, err
		}
		errs = append(errs, err)
		all = append(all, rs...)
	}
	return all, errs, nil
}

func runSim(cmd *cobra.Command, f *simFlags) (err error) {
	if f.demo {
		return runDemo(cmd.OutOrStdout(), f.asJSON)
	}
	if len(f.workloads)+len(f.traces) == 0 {
		return usageError("give --workload SPEC or --trace FILE (or --demo)")
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if err := checkModeFlags(cmd, cfg.Mode); err != nil {
		return err
	}
	refs, err := sim.ParseReferences(f.reference)
	if err != nil {
		return usageError("--reference: %v", err)
	}
	pols := splitPolicies(f.policies)
	if len(pols) == 0 && refs == (sim.References{}) {
		return usageError("give --policy SPEC or --reference lru,belady: nothing to run")
	}
	for _, p := range pols {
		if _, err := policy.New(p, policy.Env{}); err != nil {
			return usageError("--policy: %v", err)
		}
	}
	if f.moveLog != "" {
		if cfg.Mode == sim.ModeTiering {
			return usageError("--move-log: cache and blocks modes only")
		}
		mw, werr := newMoveWriter(f.moveLog)
		if werr != nil {
			return withCode(ExitError, fmt.Errorf("--move-log: %w", werr))
		}
		cfg.Moves = mw
		defer func() { err = closeMoveLog(err, mw, f.moveLog) }()
	}
	all, errs, err := f.compare(cfg, pols, refs)
	if err != nil {
		return err
	}
	if f.asJSON {
		if err := json.NewEncoder(cmd.OutOrStdout()).Encode(all); err != nil {
			return err
		}
	} else if err := printResults(cmd.OutOrStdout(), all); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// tieringFlags are the flags only tiering mode reads.
var tieringFlags = []string{"sample-rate", "epoch", "move-blocks", "decay", "reuse", "headroom", "cooldown-epochs"}

// checkModeFlags refuses a tiering flag given to a run in another mode,
// which would otherwise be silently ignored.
func checkModeFlags(cmd *cobra.Command, mode sim.Mode) error {
	if mode == sim.ModeTiering {
		return nil
	}
	for _, name := range tieringFlags {
		if cmd.Flags().Changed(name) {
			return usageError("--%s: tiering mode only (this run is in %s mode; give --mode tiering)", name, mode)
		}
	}
	return nil
}
