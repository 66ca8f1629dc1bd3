package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// Markdown is RESULTS.md: the run's setting, the summary table, the
// detail tables, the targets and how each configuration was tuned.
func Markdown(res *Results) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Head-to-head: kvtier against the kernel's own tiering\n\n")
	fmt.Fprintf(&b, "Issue 11, item 4. One fresh guest per configuration: kernel %s, topology %s (node 0: 2 CPUs, DRAM; node 1: CPU-less CXL, "+
		"a lower memory tier), QEMU TCG. The same workload in each: a 512 MiB arena of 2 MiB blocks (4 KiB pages), first touch, "+
		"then (a) hot set A, B, A again, (b) the regret phase, (c) a KV pool replaying the Mooncake conversation trace. "+
		"Under TCG compare placement and ratios within one run, never absolute times.\n\n", res.Kernel, res.Topology)
	fmt.Fprintf(&b, "- run: %s, commit %s\n- command: `%s`\n- workload flags: `%s`\n\n", res.Started.Format("2006-01-02 15:04 MST"), res.Commit, res.Command, res.Workload)
	fmt.Fprintf(&b, "![hot-set share on node 0 over time](%s)\n\n", SVGFile)
	fmt.Fprintf(&b, "What each figure shows and why each missed target misses, from this run's data: [ANALYSIS.md](ANALYSIS.md) (written by hand).\n\n")
	summaryTable(&b, res.Runs)
	shiftTable(&b, res.Runs)
	migrationTable(&b, res.Runs)
	regretTable(&b, res.Runs)
	replayTable(&b, res.Runs)
	targetTable(&b, res.Targets)
	tuning(&b, res.Runs)
	return b.Bytes()
}

// row writes one markdown table row.
func row(b *bytes.Buffer, cells ...string) {
	fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
}

// header writes a table's header and separator.
func header(b *bytes.Buffer, cells ...string) {
	row(b, cells...)
	sep := make([]string, len(cells))
	for i := range sep {
		sep[i] = "---"
	}
	row(b, sep...)
}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func secs(p *float64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprintf("%.1f", *p)
}

func phaseCells(r *Run, names []string, cell func(*result.Phase) string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "-"
		if p := r.Phase(n); p != nil {
			out[i] = cell(p)
		}
	}
	return out
}

func summaryTable(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Summary\n\nHot share: share of the hot set's pages on node 0 at the end of each phase. " +
		"To 80%: seconds from the shift to the first sample at 80% or more. Pages: kvtier's kvtier_migrated_pages_total " +
		"and the kernel's pgmigrate_success (every migration: move_pages, NUMA balancing, demotion, DAMOS). " +
		"Revisit: regret set C's share on node 0 when it is read again (mean over the revisits after the first). " +
		"Trace: share of the replayed block reads served from node 0.\n\n")
	header(b, "configuration", "A1", "B", "A2", "to 80% B / A2 (s)", "pages kvtier", "pages kernel",
		"daemon CPU s", "kdamond CPU s", "revisit", "trace node 0", "checksums")
	for i := range runs {
		r := &runs[i]
		if r.Workload == nil {
			row(b, r.Config, "failed: "+strings.Join(r.Errors, "; "), "", "", "", "", "", "", "", "", "", "")
			continue
		}
		cells := []string{r.Config}
		cells = append(cells, phaseCells(r, []string{"A1", "B", "A2"}, func(p *result.Phase) string { return f2(p.EndShare) })...)
		cells = append(cells, strings.Join(phaseCells(r, []string{"B", "A2"}, func(p *result.Phase) string { return secs(p.To80) }), " / "))
		cells = append(cells, fmt.Sprintf("%.0f", r.KvtierPages()), fmt.Sprint(r.KernelPages()),
			fmt.Sprintf("%.1f", r.DaemonCPU), fmt.Sprintf("%.1f", r.KdamondCPU), regretCell(r), replayCell(r), verdict(r))
		row(b, cells...)
	}
	b.WriteString("\n")
}

func regretCell(r *Run) string {
	if r.Workload.Regret == nil {
		return "-"
	}
	return f2(r.Workload.Regret.RevisitShare)
}

func replayCell(r *Run) string {
	if r.Workload.Replay == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", r.Workload.Replay.Node0Share)
}

func verdict(r *Run) string {
	w := r.Workload
	if w.ChecksumsOK() {
		return fmt.Sprintf("all %d match", w.Verified)
	}
	return fmt.Sprintf("FAIL: %d blocks, %d reads", len(w.Mismatches), w.LiveMismatches)
}

func shiftTable(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Shifting hot sets\n\nPer phase: share at its start, mean over it, at its end; seconds to 80%; passes over the set.\n\n")
	header(b, "configuration", "first touch", "A1 start/mean/end", "A1 to 80%", "B start/mean/end", "B to 80%", "A2 start/mean/end", "A2 to 80%", "passes A1/B/A2")
	for i := range runs {
		r := &runs[i]
		if r.Workload == nil {
			continue
		}
		cells := []string{r.Config, f2(r.Workload.FirstTouchShare)}
		for _, n := range []string{"A1", "B", "A2"} {
			p := r.Phase(n)
			if p == nil {
				cells = append(cells, "-", "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.2f / %.2f / %.2f", p.StartShare, p.MeanShare, p.EndShare), secs(p.To80))
		}
		cells = append(cells, strings.Join(phaseCells(r, []string{"A1", "B", "A2"}, func(p *result.Phase) string { return fmt.Sprint(p.Passes) }), "/"))
		row(b, cells...)
	}
	b.WriteString("\n")
}

func migrationTable(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Migrations and CPU\n\nPages the kernel migrated in each phase (pgmigrate_success, read by the workload as the phase began and ended), " +
		"kvtier's pages by direction (its metrics) and every /proc/vmstat migration counter that changed during the run.\n\n")
	header(b, "configuration", "pages A1 / B / A2 / regret / replay", "kvtier promote", "kvtier demote", "vmstat (delta)", "daemon CPU s", "kdamond CPU s")
	for i := range runs {
		r := &runs[i]
		row(b, r.Config, phasePages(r), metric(r, `kvtier_migrated_pages_total{direction="promote"}`), metric(r, `kvtier_migrated_pages_total{direction="demote"}`),
			vmstatCell(r.VMStat), fmt.Sprintf("%.1f", r.DaemonCPU), fmt.Sprintf("%.1f", r.KdamondCPU))
	}
	b.WriteString("\n")
}

// phasePages is the pages migrated in each phase of r, "-" where unknown.
func phasePages(r *Run) string {
	w := r.Workload
	if w == nil {
		return "-"
	}
	cell := func(n int64) string {
		if n < 0 {
			return "-"
		}
		return fmt.Sprint(n)
	}
	cells := phaseCells(r, []string{"A1", "B", "A2"}, func(p *result.Phase) string { return cell(p.Migrated) })
	for _, n := range []int64{regretPages(w.Regret), replayPages(w.Replay)} {
		cells = append(cells, cell(n))
	}
	return strings.Join(cells, " / ")
}

func regretPages(r *result.Regret) int64 {
	if r == nil {
		return -1
	}
	return r.Migrated
}

func replayPages(r *result.Replay) int64 {
	if r == nil {
		return -1
	}
	return r.Migrated
}

func metric(r *Run, name string) string {
	v, ok := r.Metrics[name]
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func vmstatCell(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !strings.HasPrefix(k, "numa_") || k == "numa_pages_migrated" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var s []string
	for _, k := range keys {
		s = append(s, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(s, ", ")
}
