//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestRules is scenario 4 on 6.12, then a THP arena under a daemon
// sampling with DAMON: the daemon never demotes pinned blocks and brings
// one back that was moved behind its back (placement reconcile),
// think_complete blocks are demoted before think_active ones even when
// they were read more recently (marked without being read again), huge-page
// blocks move whole and every checksum matches.
func TestRules(t *testing.T) {
	r := boot(t, scenario{
		name: "rules-6.12-cxl", kernel: "6.12", topology: "cxl",
		script: "rules.sh", timeout: 4 * time.Minute, files: configs("rules.hcl", "thp.hcl"),
	})
	pinned := []int{0, 1}
	blocks := r.twoNodeBlocks
	for _, step := range []string{"where-start", "where-converged", "where-pinned-back", "where-classes"} {
		b := blocks(step)
		for _, p := range pinned {
			if p == 0 && step != "where-start" && step != "where-converged" {
				continue // moved away by the probe, see below
			}
			if b[p] != 0 {
				r.fatal("%s: pinned block %d is on node %d; blocks %s", step, p, b[p], blockString(b))
			}
		}
		t.Logf("%-16s %s", step, blockString(b))
	}
	// The probe moved block 0 away; the daemon should bring it back.
	var mv moveReport
	r.decode("move-pinned", &mv)
	if mv.After.Arenas[0].Blocks[0] != 1 {
		r.fatal("the probe could not move pinned block 0 to node 1: %+v", mv.Stats)
	}
	// The daemon's placement reconcile finds it on the slow node and the
	// next plan brings it back.
	if b := blocks("where-pinned-back"); b[0] != 0 {
		r.fatal("pinned block 0, moved to node 1 by the probe, is still on node %d two seconds later; blocks %s", b[0], blockString(b))
	}
	conv := blocks("where-converged")
	for i := 2; i <= 11; i++ {
		if conv[i] != 0 {
			r.fatal("where-converged: hot block %d is on node %d; blocks %s", i, conv[i], blockString(conv))
		}
	}
	cls := blocks("where-classes")
	complete, active, fresh := r.checkClassOrder(cls)
	var regions []struct {
		Class string `json:"class"`
	}
	r.decode("regions-after-complete", &regions)

	r.wantReportOK("report-rules")
	t.Logf("classes: think_complete 2-6 on node 0 afterwards %v, think_active 7-11 %v, new 20-24 %v", complete, active, fresh)
	t.Run("thp", func(t *testing.T) {
		r := r.with(t)
		last := r.series("scrape-thp").last()
		r.requireMetric(last, "kvtier_sampler_events_total", "kvtier_migrated_pages_total")
		if last.get(`kvtier_sampler_events_total{sampler="damon"}`) == 0 {
			r.fatal("the damon sampler counted nothing (%s)", last.labelled("kvtier_sampler_events_total"))
		}
		r.checkTHP(last)
	})
}

// twoNodeBlocks returns the node of each block of the first arena at
// step, failing if a block is split across nodes, not present, or on a
// node other than 0 and 1.
func (r *run) twoNodeBlocks(step string) []int {
	r.t.Helper()
	var w whereReport
	r.decode(step, &w)
	b := w.Arenas[0].Blocks
	for i, n := range b {
		if n != 0 && n != 1 {
			r.fatal("%s: block %d is on node %d (-2: split across nodes, -1: not present); blocks %s", step, i, n, blockString(b))
		}
	}
	return b
}

// checkClassOrder checks the blocks cls after the classes step: some of
// the newly read blocks 20-24 were promoted, and to make room a
// think_complete block (2-6) was demoted before any think_active one
// (7-11). It returns the blocks of each group still on node 0.
func (r *run) checkClassOrder(cls []int) (complete, active, fresh []int) {
	r.t.Helper()
	for i := 2; i <= 6; i++ {
		if cls[i] == 0 {
			complete = append(complete, i)
		}
	}
	for i := 7; i <= 11; i++ {
		if cls[i] == 0 {
			active = append(active, i)
		}
	}
	for i := 20; i <= 24; i++ {
		if cls[i] == 0 {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		r.fatal("none of the newly read blocks 20-24 was promoted; blocks %s", blockString(cls))
	}
	if len(active) < 5 && len(complete) > 0 {
		r.fatal("think_active blocks %v left node 0 while think_complete blocks %v stayed; blocks %s", diff(seq(7, 12), active), complete, blockString(cls))
	}
	if len(complete) >= 5 {
		r.fatal("no think_complete block (2-6) was demoted to make room for 20-24; blocks %s", blockString(cls))
	}
	return complete, active, fresh
}

// checkTHP: a 48 MiB arena of 2 MiB huge pages over the 24 MiB fast tier:
// the daemon demoted blocks a huge page at a time (EBUSY retried and
// counted, not fatal), every block is wholly on one node, and every
// checksum matches.
func (r *run) checkTHP(last sample) {
	thp := r.text("thp")
	if !strings.Contains(thp, "AnonHugePages") || strings.Contains(thp, "AnonHugePages:         0 kB") {
		r.fatal("the arena has no huge pages (smaps_rollup: %q): the THP case is not exercised", thp)
	}
	var w whereReport
	r.decode("where-thp", &w)
	b := w.Arenas[0].Blocks
	for i, n := range b {
		if n != 0 && n != 1 {
			r.fatal("huge-page block %d is on node %d (-2: split across nodes); blocks %s", i, n, blockString(b))
		}
	}
	fast := onNode(w, seq(0, len(b)), 0)
	if len(fast) > 12 {
		r.fatal("%d huge-page blocks on node 0, fast tier 12 blocks; blocks %s", len(fast), blockString(b))
	}
	r.wantReportOK("report-thp")
	var m map[string]float64
	r.decode("metrics-thp", &m)
	view := m[`kvtier_blocks{tier="fast"}`]
	r.t.Logf("THP arena %s (%s); the daemon counts %v fast blocks; migration errors %s",
		blockString(b), strings.Join(strings.Fields(thp), " "), view, last.labelled("kvtier_migration_errors_total"))
	// The daemon's view is where the blocks are (an EBUSY page of a moved
	// huge page made it count the move failed), and it stays near the
	// budget (promotions cut by the move deadline after their demotions
	// ran drained the fast tier).
	if int(view) != len(fast) || len(fast) < 12-2 {
		r.fatal("%d blocks on node 0 (fast tier 12 blocks) while kvtier_blocks{tier=\"fast\"} says %v; EBUSY pages %v",
			len(fast), view, last.get(`kvtier_migration_errors_total{errno="EBUSY"}`))
	}
}

// diff returns the elements of a not in b.
func diff(a, b []int) []int {
	var out []int
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}
