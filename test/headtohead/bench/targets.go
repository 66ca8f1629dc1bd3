package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvtier/kvtier/test/headtohead/report"
	"github.com/kvtier/kvtier/test/headtohead/result"
)

// The configurations the targets compare.
const (
	cfgAuto  = "kvtier-auto"
	cfgHints = "kvtier-hints"
	cfgTPP   = "tpp"
	cfgDAMOS = "damos"
)

// shifts are the phases that begin with a shift of the hot set.
var shifts = []string{"B", "A2"}

// allPhases are the shifting phases.
var allPhases = []string{"A1", "B", "A2"}

// Targets measures issue 11's targets on the runs. Nothing is asserted
// here: each target says whether it was met and what was measured, and a
// target whose configurations did not run is not met.
func Targets(runs []report.Run) []report.Target {
	by := map[string]*report.Run{}
	for i := range runs {
		if runs[i].Workload != nil {
			by[runs[i].Config] = &runs[i]
		}
	}
	return []report.Target{
		hotShareTarget(by),
		aboveKernelTarget(by),
		to80Target(by),
		pagesTarget(by),
		hintsTarget(by),
		regretTarget(by),
		replayTarget(by),
		cpuTarget(by),
		checksumTarget(runs),
	}
}

func missing(name string, by map[string]*report.Run, cfgs ...string) (report.Target, bool) {
	var gone []string
	for _, c := range cfgs {
		if by[c] == nil {
			gone = append(gone, c)
		}
	}
	if len(gone) == 0 {
		return report.Target{}, false
	}
	return report.Target{Name: name, Measured: "not measured: no " + strings.Join(gone, ", ") + " run"}, true
}

func hotShareTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: hot share >= 0.95 at the end of every phase"
	if t, ok := missing(name, by, cfgAuto); ok {
		return t
	}
	met, s := true, []string{}
	for _, ph := range allPhases {
		p := by[cfgAuto].Phase(ph)
		if p == nil {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		met = met && p.EndShare >= 0.95
		s = append(s, fmt.Sprintf("%s %.2f", ph, p.EndShare))
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, ", ")}
}

func aboveKernelTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: end-of-phase hot share at or above TPP's and DAMOS's"
	if t, ok := missing(name, by, cfgAuto, cfgTPP, cfgDAMOS); ok {
		return t
	}
	met, s := true, []string{}
	for _, ph := range allPhases {
		k, t, d := by[cfgAuto].Phase(ph), by[cfgTPP].Phase(ph), by[cfgDAMOS].Phase(ph)
		if k == nil || t == nil || d == nil {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		met = met && k.EndShare >= t.EndShare && k.EndShare >= d.EndShare
		s = append(s, fmt.Sprintf("%s %.2f vs %.2f/%.2f", ph, k.EndShare, t.EndShare, d.EndShare))
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, ", ")}
}

func to80Target(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: seconds to 80% after each shift no more than DAMOS's"
	if t, ok := missing(name, by, cfgAuto, cfgDAMOS); ok {
		return t
	}
	met, s := true, []string{}
	for _, ph := range shifts {
		k, d := by[cfgAuto].Phase(ph), by[cfgDAMOS].Phase(ph)
		if k == nil || d == nil {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		switch {
		case k.To80 == nil:
			met = false
		case d.To80 != nil && *k.To80 > *d.To80:
			met = false
		}
		s = append(s, fmt.Sprintf("%s %s vs %s", ph, secs(k.To80), secs(d.To80)))
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, ", ")}
}

func secs(p *float64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs", *p)
}

func pagesTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: pages migrated no more than TPP's (pgmigrate_success)"
	if t, ok := missing(name, by, cfgAuto, cfgTPP); ok {
		return t
	}
	k, t := by[cfgAuto].KernelPages(), by[cfgTPP].KernelPages()
	return report.Target{Name: name, Met: k <= t, Measured: fmt.Sprintf("%d vs %d", k, t)}
}

func hintsTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-hints: hot share >= 0.95 within 2 epochs (2 s) of every shift"
	if t, ok := missing(name, by, cfgHints); ok {
		return t
	}
	met, s := true, []string{}
	w := by[cfgHints].Workload
	for _, ph := range shifts {
		p := by[cfgHints].Phase(ph)
		if p == nil {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		d, ok := result.SecondsTo(w.Series, ph, p.Start, 0.95)
		met = met && ok && d <= 2
		if ok {
			s = append(s, fmt.Sprintf("%s %.1fs", ph, d))
		} else {
			s = append(s, ph+" never")
		}
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, ", ")}
}

func regretTarget(by map[string]*report.Run) report.Target {
	const name = "regret: kvtier-auto keeps revisited blocks on node 0 more than TPP and DAMOS (share at revisit)"
	if t, ok := missing(name, by, cfgAuto, cfgTPP, cfgDAMOS); ok {
		return t
	}
	k, t, d := by[cfgAuto].Workload.Regret, by[cfgTPP].Workload.Regret, by[cfgDAMOS].Workload.Regret
	if k == nil || t == nil || d == nil {
		return report.Target{Name: name, Measured: "no regret phase"}
	}
	return report.Target{Name: name, Met: k.RevisitShare > t.RevisitShare && k.RevisitShare > d.RevisitShare,
		Measured: fmt.Sprintf("%.2f vs TPP %.2f, DAMOS %.2f (gap share %.2f vs %.2f, %.2f)",
			k.RevisitShare, t.RevisitShare, d.RevisitShare, k.GapShare, t.GapShare, d.GapShare)}
}

func replayTarget(by map[string]*report.Run) report.Target {
	const name = "trace replay: kvtier-auto's node-0 read share within 10% of kvtier sim --mode tiering"
	if t, ok := missing(name, by, cfgAuto); ok {
		return t
	}
	rp := by[cfgAuto].Workload.Replay
	if rp == nil {
		return report.Target{Name: name, Measured: "no trace replay"}
	}
	sim := by[cfgAuto].SimShare
	if sim == nil {
		return report.Target{Name: name, Measured: fmt.Sprintf("live %.3f; no prediction of the simulator", rp.Node0Share)}
	}
	d := rp.Node0Share - *sim
	return report.Target{Name: name, Met: math.Abs(d) <= 0.1**sim,
		Measured: fmt.Sprintf("live %.3f vs sim %.3f (%+.0f%%)", rp.Node0Share, *sim, 100*d/max(*sim, 1e-9))}
}

func cpuTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: daemon CPU (with its own kdamond) no more than the kdamonds' in the DAMOS configuration"
	if t, ok := missing(name, by, cfgAuto, cfgDAMOS); ok {
		return t
	}
	a := by[cfgAuto]
	k, d := a.DaemonCPU+a.KdamondCPU, by[cfgDAMOS].KdamondCPU
	return report.Target{Name: name, Met: k <= d, Measured: fmt.Sprintf("%.1fs (daemon %.1fs + kdamond %.1fs) vs %.1fs", k, a.DaemonCPU, a.KdamondCPU, d)}
}

func checksumTarget(runs []report.Run) report.Target {
	const name = "every checksum matches in every configuration"
	met, bad := len(runs) > 0, []string{}
	for i := range runs {
		if !runs[i].ChecksumsOK() {
			met = false
			bad = append(bad, runs[i].Config)
		}
	}
	m := fmt.Sprintf("%d configurations, all match", len(runs))
	if !met {
		m = "failed or missing in: " + strings.Join(bad, ", ")
	}
	return report.Target{Name: name, Met: met, Measured: m}
}
