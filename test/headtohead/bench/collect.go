package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/kvtier/kvtier/test/guest"
	"github.com/kvtier/kvtier/test/headtohead/report"
	"github.com/kvtier/kvtier/test/headtohead/result"
)

// vmstatKeys are the /proc/vmstat counters of page migration kept.
var vmstatKeys = []string{"pgmigrate_", "numa_", "pgpromote_", "pgdemote_", "thp_migration_"}

// collect fills run from the guest's results.
func collect(run *report.Run, rs *guest.Results) {
	if r, ok := rs.Get("workload"); ok {
		var w result.Report
		if err := r.JSON(&w); err != nil {
			run.Errors = append(run.Errors, err.Error())
		} else {
			run.Workload = &w
		}
		if r.RC != 0 {
			run.Errors = append(run.Errors, fmt.Sprintf("workload exited with %d", r.RC))
		}
	} else {
		run.Errors = append(run.Errors, "no workload result")
	}
	start, _ := rs.Get("vmstat-start")
	end, _ := rs.Get("vmstat-end")
	if start != nil && end != nil {
		run.VMStat = VMStatDelta(start.Output, end.Output)
	}
	if r, ok := rs.Get("procstat"); ok {
		run.DaemonCPU, run.KdamondCPU = result.CPUSeconds(r.Output)
	}
	// The daemon's kdamond for the workload ends with it: the workload's
	// own snapshot at the end of its phases has its CPU time.
	if w := run.Workload; w != nil && w.CPU != nil {
		run.DaemonCPU = max(run.DaemonCPU, w.CPU.Daemon)
		run.KdamondCPU = max(run.KdamondCPU, w.CPU.Kdamond)
	}
	if r, ok := rs.Get("metrics"); ok {
		if err := r.JSON(&run.Metrics); err != nil {
			run.Errors = append(run.Errors, err.Error())
		}
	}
	run.Kernel = text(rs, "kernel-during")
	run.Setup = text(rs, "tpp") + text(rs, "damos")
	run.DamosStats = text(rs, "damos-stats")
	for _, step := range []string{"tpp", "damos", "daemon-up-hh", "daemon-exit-hh"} {
		if r, ok := rs.Get(step); ok && r.RC != 0 {
			run.Errors = append(run.Errors, fmt.Sprintf("step %s exited with %d: %s", step, r.RC, strings.TrimSpace(string(r.Output))))
		}
	}
}

func text(rs *guest.Results, step string) string {
	if r, ok := rs.Get(step); ok {
		return string(r.Output)
	}
	return ""
}

// ParseVMStat reads /proc/vmstat's "name value" lines.
func ParseVMStat(b []byte) map[string]int64 {
	m := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			m[f[0]] = v
		}
	}
	return m
}

// VMStatDelta returns end - start of the migration counters (vmstatKeys),
// the ones that changed and pgmigrate_success always.
func VMStatDelta(start, end []byte) map[string]int64 {
	a, b := ParseVMStat(start), ParseVMStat(end)
	out := map[string]int64{"pgmigrate_success": b["pgmigrate_success"] - a["pgmigrate_success"]}
	for k, v := range b {
		for _, p := range vmstatKeys {
			if strings.HasPrefix(k, p) && v != a[k] {
				out[k] = v - a[k]
			}
		}
	}
	return out
}

// oneLine is a run's progress summary.
func oneLine(r *report.Run) string {
	if r.Workload == nil {
		return fmt.Sprintf("no workload report (%s)", strings.Join(r.Errors, "; "))
	}
	var s []string
	for _, p := range r.Workload.Phases {
		s = append(s, fmt.Sprintf("%s %.2f", p.Name, p.EndShare))
	}
	if rg := r.Workload.Regret; rg != nil {
		s = append(s, fmt.Sprintf("regret revisit %.2f", rg.RevisitShare))
	}
	if rp := r.Workload.Replay; rp != nil {
		s = append(s, fmt.Sprintf("trace node0 %.3f", rp.Node0Share))
	}
	s = append(s, fmt.Sprintf("pgmigrate %d, kvtier pages %.0f, cpu daemon %.1fs kdamond %.1fs, checksums ok %v",
		r.KernelPages(), r.KvtierPages(), r.DaemonCPU, r.KdamondCPU, r.ChecksumsOK()))
	return strings.Join(s, ", ")
}
