package report

import (
	"bytes"
	"fmt"
	"strings"
)

func regretTable(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Regret\n\nSet C (16 blocks) is read alone (warm), then set D (72 other blocks) until half of C's share " +
		"on node 0 is gone or the cool-off ends; then C is revisited in short bursts with gaps of D between them. A system that " +
		"learns from the regret of demoting C keeps it on node 0 through the gaps (high share at revisit); one that does not " +
		"demotes it again in every gap. Held: share of gap time C stayed at or above half its share at the burst's end. " +
		"C and D together (88 blocks) fit node 0's room (about 130 of the arena's blocks), which TPP, DAMOS and kvtier's default " +
		"budget use; only kvtier-auto-160, held to 80 blocks, must give up C or part of D.\n\n")
	header(b, "configuration", "after warm", "after cool-off (s)", "at each revisit", "revisit (later)", "gap mean", "held")
	for i := range runs {
		r := &runs[i]
		if r.Workload == nil || r.Workload.Regret == nil {
			continue
		}
		g := r.Workload.Regret
		var at []string
		for _, c := range g.Cycles {
			at = append(at, f2(c.AtRevisit))
		}
		row(b, r.Config, f2(g.WarmShare), fmt.Sprintf("%.2f (%.1f)", g.CoolShare, g.CoolSeconds), strings.Join(at, ", "),
			f2(g.RevisitShare), f2(g.GapShare), f2(g.HeldShare))
	}
	b.WriteString("\n")
}

func replayTable(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Trace replay\n\nThe Mooncake conversation trace's prompt blocks, in order, into a KV pool of the arena's blocks " +
		"(LRU; a new hash id overwrites the least recently used block, a prefill). Before each access the workload asks where the " +
		"block's pages are. The trace reuses few blocks (most reads are new hash ids, so the pool sweeps its slots in LRU order), " +
		"so the share mostly follows how much of the pool a configuration keeps on node 0 and which slots: a policy that " +
		"promotes the blocks just read and demotes the least recently used ones demotes exactly the slots the pool overwrites next. " +
		"Pages: migrated during the replay. Sim: what `kvtier sim --mode tiering` predicts for the same accesses, policy, planner " +
		"settings and epoch, starting from the slots that were on node 0 when the replay began (capacity: as many blocks, or " +
		"kvtier's fast_bytes if lower). \"On hits\" is the shared blocks read again (hash id 0, the common prefix).\n\n")
	header(b, "configuration", "requests", "reads", "hits", "node-0 read share", "sim", "on hits", "whole block on node 0", "pages")
	for i := range runs {
		r := &runs[i]
		if r.Workload == nil || r.Workload.Replay == nil {
			continue
		}
		p := r.Workload.Replay
		sim := "-"
		if r.SimShare != nil {
			sim = fmt.Sprintf("%.3f", *r.SimShare)
		}
		row(b, r.Config, fmt.Sprint(p.Requests), fmt.Sprint(p.Reads), fmt.Sprint(p.Hits), fmt.Sprintf("%.3f", p.Node0Share), sim,
			fmt.Sprintf("%.3f", p.Node0HitShare), fmt.Sprintf("%.3f", p.WholeBlockShare), fmt.Sprint(p.Migrated))
	}
	b.WriteString("\n")
}

func targetTable(b *bytes.Buffer, ts []Target) {
	if len(ts) == 0 {
		return
	}
	b.WriteString("## Issue 11's targets (measured, not asserted)\n\n")
	header(b, "target", "met", "measured")
	for _, t := range ts {
		met := "no"
		if t.Met {
			met = "yes"
		}
		row(b, t.Name, met, t.Measured)
	}
	b.WriteString("\n")
}

func tuning(b *bytes.Buffer, runs []Run) {
	b.WriteString("## Configurations and their tuning\n\n")
	for i := range runs {
		r := &runs[i]
		fmt.Fprintf(b, "- **%s**: %s. %s", r.Config, r.About, r.Tuning)
		if r.Note != "" {
			fmt.Fprintf(b, " Note: %s.", r.Note)
		}
		if len(r.Errors) > 0 {
			fmt.Fprintf(b, " Errors: %s.", strings.Join(r.Errors, "; "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}
