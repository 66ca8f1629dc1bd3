package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon/api"
)

func init() { register(newStatusCmd) }

func newStatusCmd() *cobra.Command {
	var (
		f      clientFlags
		window time.Duration
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the daemon's health, policy, budgets, samplers and last epoch",
		Long: "Ask the running daemon for its status: health, uptime, policy, budgets and\n" +
			"how much of them the last epoch used, tenants, samplers with their event and\n" +
			"drop rates (measured over --rate-window; 0 averages since the daemon started)\n" +
			"and the last epoch's decision time.\n" + healthRule,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if window < 0 {
				return usageError("--rate-window %v: want a duration >= 0", window)
			}
			c := f.client()
			defer c.Close()
			rep, err := statusWithRates(cmd.Context(), c, window)
			if err != nil {
				return err
			}
			if f.asJSON {
				err = json.NewEncoder(cmd.OutOrStdout()).Encode(rep)
			} else {
				err = writeStatus(cmd.OutOrStdout(), rep)
			}
			if err != nil {
				return err
			}
			return unhealthy(rep)
		},
	}
	f.add(cmd)
	cmd.Flags().DurationVar(&window, "rate-window", time.Second, "how long to measure sampler rates over")
	return cmd
}

// statusReport is what `kvtier status` prints: the daemon's status plus
// what the CLI derives from it.
type statusReport struct {
	api.Status
	Healthy  bool     `json:"healthy"`
	Problems []string `json:"problems"`
	// Warnings are listed but leave the daemon healthy (see healthRule).
	Warnings []string `json:"warnings"`
	// RateSeconds is the window the sampler rates were measured over.
	RateSeconds  float64       `json:"rate_seconds"`
	SamplerRates []samplerRate `json:"sampler_rates"`
}

// samplerRate is one sampler's event and drop rate.
type samplerRate struct {
	Name         string  `json:"name"`
	EventsPerSec float64 `json:"events_per_sec"`
	DropsPerSec  float64 `json:"drops_per_sec"`
}

// statusWithRates reads the status twice, window apart, to measure rates
// (once, averaging over the uptime, when window is 0).
func statusWithRates(ctx context.Context, c *api.Client, window time.Duration) (statusReport, error) {
	first, err := call(ctx, c, (*api.Client).Status)
	if err != nil {
		return statusReport{}, err
	}
	last := first
	if window > 0 {
		select {
		case <-time.After(window):
		case <-ctx.Done():
			return statusReport{}, ctx.Err()
		}
		if last, err = call(ctx, c, (*api.Client).Status); err != nil {
			return statusReport{}, err
		}
	}
	return newStatusReport(first, last), nil
}

// newStatusReport derives rates and problems from two status samples (the
// same one twice for averages since the start).
func newStatusReport(first, last api.Status) statusReport {
	rep := statusReport{Status: last, Problems: []string{}, Warnings: []string{}, SamplerRates: []samplerRate{}}
	secs := last.UptimeSeconds - first.UptimeSeconds
	base := map[string]api.SamplerStatus{}
	if secs <= 0 || first.PID != last.PID {
		secs = last.UptimeSeconds
	} else {
		for _, s := range first.Samplers {
			base[s.Name] = s
		}
	}
	rep.RateSeconds = secs
	for _, s := range last.Samplers {
		r := samplerRate{Name: s.Name}
		b := base[s.Name]
		if secs > 0 && s.Events >= b.Events && s.Drops >= b.Drops {
			r.EventsPerSec = float64(s.Events-b.Events) / secs
			r.DropsPerSec = float64(s.Drops-b.Drops) / secs
		}
		if s.Error != "" {
			rep.addSamplerError(s)
		}
		if r.DropsPerSec > 0 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("sampler %s drops %.1f events/s "+
				"(its in-kernel map is full: raise its map size)", s.Name, r.DropsPerSec))
		}
		rep.SamplerRates = append(rep.SamplerRates, r)
	}
	if sm := last.Sampling; sm != nil && !sm.SteadyState && sm.Problem != "" {
		rep.Warnings = append(rep.Warnings, sm.Problem)
	}
	rep.checkSamplersFailed(last.Samplers)
	if last.Epoch.LastError != "" {
		rep.Problems = append(rep.Problems, "last epoch: "+last.Epoch.LastError)
	}
	if d, err := time.ParseDuration(last.Epoch.Length); err == nil && last.Epoch.LastSeconds > d.Seconds() {
		rep.Problems = append(rep.Problems, fmt.Sprintf("the last epoch took %s, longer than the epoch (%s)",
			seconds(last.Epoch.LastSeconds), last.Epoch.Length))
	}
	rep.Healthy = len(rep.Problems) == 0
	return rep
}

func writeStatus(w io.Writer, rep statusReport) error {
	s := rep.Status
	fmt.Fprintf(w, "kvtier daemon %s, pid %d, up %s, %s\n", s.Version, s.PID, uptime(s.UptimeSeconds), healthString(rep))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	for _, p := range rep.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
	config := s.ConfigFile
	if config == "" {
		config = "(built-in defaults)"
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "config:\t%s\n", config)
	fmt.Fprintf(tw, "policy:\t%s\n", s.Policy)
	fmt.Fprintf(tw, "moving:\t%s\n", movingString(s))
	fmt.Fprintf(tw, "kernel tiering:\t%s\n", kernelTieringString(s.KernelTiering))
	fmt.Fprintf(tw, "regions:\t%d\n", s.Regions)
	e := s.Epoch
	fmt.Fprintf(tw, "epoch:\t%s, %d run, last took %s, decision %s\n", e.Length, e.Count,
		seconds(e.LastSeconds), seconds(e.DecisionSeconds))
	fmt.Fprintf(tw, "cpu:\t%s\n", cpuString(s))
	rec := "off"
	if s.Recording.Recording {
		rec = fmt.Sprintf("to %s (%d records)", s.Recording.Path, s.Recording.Records)
	}
	fmt.Fprintf(tw, "trace recording:\t%s\n", rec)
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeBudgets(w, s.Budgets, s.BudgetUse); err != nil {
		return err
	}
	if err := writeTenants(w, s.Tenants); err != nil {
		return err
	}
	return writeSamplers(w, s.Samplers, rep.SamplerRates, rep.RateSeconds)
}

func movingString(s api.Status) string {
	switch {
	case s.SingleNode:
		return "no: one memory node, every block is fast"
	case !s.Moving:
		return "no: reporting only"
	}
	return "yes"
}

func kernelTieringString(k api.KernelTiering) string {
	out := k.Mode
	if k.NUMABalancing != "" {
		out += ", numa_balancing=" + k.NUMABalancing
	}
	if k.Demotion != "" {
		out += ", demotion=" + k.Demotion
	}
	if k.Action != "" {
		out += ": " + k.Action
	}
	return out
}

func writeBudgets(w io.Writer, b api.Budgets, u api.BudgetUse) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUDGET\tLIMIT\tUSED\tSHARE")
	capacity := "unknown"
	if u.FastCapacity > 0 {
		capacity = topoBytes(uint64(u.FastCapacity))
	}
	fmt.Fprintf(tw, "fast tier\t%s\t%s\t%s\n", limit(b.FastBytes, topoBytes(uint64(b.FastBytes))),
		topoBytes(uint64(max(u.FastBytes, 0))), share(u.FastBytes, b.FastBytes))
	fmt.Fprintf(tw, "migration\t%s\t%s/s\t%s\n", limit(b.MigrateBytesPerSec, topoBytes(uint64(b.MigrateBytesPerSec))+"/s"),
		topoBytes(uint64(max(u.BytesPerSec, 0))), share(u.BytesPerSec, b.MigrateBytesPerSec))
	fmt.Fprintf(tw, "pages per epoch\t%s\t%d\t%s\n", limit(int64(b.PagesPerEpoch), fmt.Sprint(b.PagesPerEpoch)),
		u.PagesMoved, share(int64(u.PagesMoved), int64(b.PagesPerEpoch)))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "planner fast capacity %s, %d moves deferred in the last epoch\n", capacity, u.DeferredMoves)
	return err
}

func writeTenants(w io.Writer, ts []api.TenantStatus) error {
	if len(ts) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TENANT\tBUDGET\tFAST\tSLOW\tSHARE\tREGIONS")
	for _, t := range ts {
		name := t.Name
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", name, limit(t.Budget, topoBytes(uint64(t.Budget))),
			topoBytes(uint64(t.FastBytes)), topoBytes(uint64(t.SlowBytes)), share(t.FastBytes, t.Budget), t.Regions)
	}
	return tw.Flush()
}

func writeSamplers(w io.Writer, ss []api.SamplerStatus, rates []samplerRate, window float64) error {
	fmt.Fprintln(w)
	if len(ss) == 0 {
		_, err := fmt.Fprintln(w, "no samplers")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "SAMPLER\tEVENTS\tEVENTS/S\tDROPS\tDROPS/S\tWATCHED\tKERNEL CPU\tERROR\n")
	for i, s := range ss {
		var r samplerRate
		if i < len(rates) {
			r = rates[i]
		}
		kcpu := "-"
		if s.KernelCPUSeconds > 0 {
			kcpu = fmt.Sprintf("%.1fs", s.KernelCPUSeconds)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%.1f\t%d\t%s\t%s\n", s.Name, s.Events, r.EventsPerSec, s.Drops,
			r.DropsPerSec, s.Watched, kcpu, orDash(s.Error))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "(rates over %s)\n", seconds(window))
	return err
}

// limit prints a budget, "unlimited" for 0.
func limit(v int64, s string) string {
	if v <= 0 {
		return "unlimited"
	}
	return s
}

// share prints used/limit as a percentage, "-" without a limit.
func share(used, lim int64) string {
	if lim <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(used)/float64(lim))
}

// seconds prints a duration in seconds with a readable unit.
func seconds(s float64) string {
	switch {
	case s <= 0:
		return "0s"
	case s < 1e-3:
		return fmt.Sprintf("%.0fµs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1fms", s*1e3)
	}
	return fmt.Sprintf("%.1fs", s)
}

// uptime prints seconds as "3d 4h 5m", "4h 5m 6s" or "5m 6s".
func uptime(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	days, h, m, sec := d/(24*time.Hour), d/time.Hour%24, d/time.Minute%60, d/time.Second%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh %dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("%dh %dm %ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm %ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}

// cpuString is the daemon's CPU time next to its samplers' kernel threads'.
func cpuString(s api.Status) string {
	out := fmt.Sprintf("daemon %.1fs", s.CPUSeconds)
	for _, sm := range s.Samplers {
		if sm.KernelCPUSeconds > 0 {
			out += fmt.Sprintf(", %s kernel threads %.1fs", sm.Name, sm.KernelCPUSeconds)
		}
	}
	return out
}
