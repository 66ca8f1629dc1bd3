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

// damosVariants are the DAMOS configurations: each target compares kvtier
// with the strongest of them on its own measure.
var damosVariants = []string{"damos", "damos-hmsdk"}

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
		if c == cfgDAMOS && len(damosRuns(by)) > 0 {
			continue
		}
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
	const name = "kvtier-auto: end-of-phase hot share at or above TPP's and the best DAMOS configuration's"
	if t, ok := missing(name, by, cfgAuto, cfgTPP, cfgDAMOS); ok {
		return t
	}
	met, s := true, []string{}
	for _, ph := range allPhases {
		k, t := by[cfgAuto].Phase(ph), by[cfgTPP].Phase(ph)
		d, dn := bestDAMOS(by, func(r *report.Run) (float64, bool) {
			if p := r.Phase(ph); p != nil {
				return p.EndShare, true
			}
			return 0, false
		}, true)
		if k == nil || t == nil || dn == "" {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		met = met && k.EndShare >= t.EndShare && k.EndShare >= d
		s = append(s, fmt.Sprintf("%s %.2f vs TPP %.2f, %s %.2f", ph, k.EndShare, t.EndShare, dn, d))
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, "; ")}
}

func to80Target(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: seconds to 80% after each shift no more than the fastest DAMOS configuration's"
	if t, ok := missing(name, by, cfgAuto, cfgDAMOS); ok {
		return t
	}
	met, s := true, []string{}
	for _, ph := range shifts {
		k := by[cfgAuto].Phase(ph)
		d, dn := bestDAMOS(by, func(r *report.Run) (float64, bool) {
			p := r.Phase(ph)
			if p == nil || p.To80 == nil {
				return 0, false
			}
			return *p.To80, true
		}, false)
		if k == nil {
			return report.Target{Name: name, Measured: "no phase " + ph}
		}
		ds := "DAMOS never"
		if dn != "" {
			ds = fmt.Sprintf("%s %.1fs", dn, d)
		}
		met = met && k.To80 != nil && (dn == "" || *k.To80 <= d)
		s = append(s, fmt.Sprintf("%s %s vs %s", ph, secs(k.To80), ds))
	}
	return report.Target{Name: name, Met: met, Measured: strings.Join(s, "; ")}
}

// damosRuns are the DAMOS configurations that ran.
func damosRuns(by map[string]*report.Run) []*report.Run {
	var out []*report.Run
	for _, n := range damosVariants {
		if by[n] != nil {
			out = append(out, by[n])
		}
	}
	return out
}

// bestDAMOS returns the strongest DAMOS figure (the highest when high,
// else the lowest) that fig yields and its configuration's name ("" when
// none yields one).
func bestDAMOS(by map[string]*report.Run, fig func(*report.Run) (float64, bool), high bool) (float64, string) {
	best, name := 0.0, ""
	for _, r := range damosRuns(by) {
		v, ok := fig(r)
		if ok && (name == "" || (high && v > best) || (!high && v < best)) {
			best, name = v, r.Config
		}
	}
	return best, name
}

func secs(p *float64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs", *p)
}

func pagesTarget(by map[string]*report.Run) report.Target {
	const name = "kvtier-auto: pages migrated during the phases no more than TPP's (pgmigrate_success)"
	if t, ok := missing(name, by, cfgAuto, cfgTPP); ok {
		return t
	}
	wk, wt := by[cfgAuto].Workload, by[cfgTPP].Workload
	if wk == nil || wt == nil || wk.PhasePages() < 0 || wt.PhasePages() < 0 {
		return report.Target{Name: name, Measured: "not measured: no per-phase counts"}
	}
	k, t := wk.PhasePages(), wt.PhasePages()
	m := fmt.Sprintf("%d vs %d (whole runs, fill and checksum pass included: %d vs %d)", k, t,
		by[cfgAuto].KernelPages(), by[cfgTPP].KernelPages())
	if lb := by[cfgAuto].Workload.MinPages(); lb > 0 {
		m += fmt.Sprintf(" (at least %d: the pages of each new hot set that started on node 1, in, and as many out of a full node 0)", lb)
	}
	return report.Target{Name: name, Met: k <= t, Measured: m}
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
	const name = "regret: kvtier-auto keeps revisited blocks on node 0 more than TPP and the best DAMOS configuration (share at revisit)"
	if t, ok := missing(name, by, cfgAuto, cfgTPP, cfgDAMOS); ok {
		return t
	}
	k, t := by[cfgAuto].Workload.Regret, by[cfgTPP].Workload.Regret
	d, dn := bestDAMOS(by, func(r *report.Run) (float64, bool) {
		g := r.Workload.Regret
		if g == nil {
			return 0, false
		}
		return g.RevisitShare, true
	}, true)
	if k == nil || t == nil || dn == "" {
		return report.Target{Name: name, Measured: "no regret phase"}
	}
	return report.Target{Name: name, Met: k.RevisitShare > t.RevisitShare && k.RevisitShare > d,
		Measured: fmt.Sprintf("%.2f vs TPP %.2f, %s %.2f (gap share %.2f vs TPP %.2f)",
			k.RevisitShare, t.RevisitShare, dn, d, k.GapShare, t.GapShare)}
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
	const name = "kvtier-auto: daemon CPU (with its own kdamond) no more than the kdamonds' of the leanest DAMOS configuration"
	if t, ok := missing(name, by, cfgAuto, cfgDAMOS); ok {
		return t
	}
	a := by[cfgAuto]
	d, dn := bestDAMOS(by, func(r *report.Run) (float64, bool) { return r.KdamondCPU, true }, false)
	k := a.DaemonCPU + a.KdamondCPU
	return report.Target{Name: name, Met: k <= d, Measured: fmt.Sprintf("%.1fs (daemon %.1fs + kdamond %.1fs) vs %s %.1fs", k, a.DaemonCPU, a.KdamondCPU, dn, d)}
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
