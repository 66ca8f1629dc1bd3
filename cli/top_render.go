package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// topLine is a frame as one plain line of key=value pairs, for pipes and
// logs.
func topLine(fr topFrame) string {
	hot := make([]string, 0, len(fr.Hottest))
	for _, r := range fr.Hottest {
		hot = append(hot, fmt.Sprintf("%d:%.1f", r.ID, r.AccessesPerSec))
	}
	hottest := "-"
	if len(hot) > 0 {
		hottest = strings.Join(hot, ",")
	}
	return fmt.Sprintf("%s epoch=%d regions=%d migrations/s=%.1f promote/s=%.1f demote/s=%.1f "+
		"bytes/s=%.0f regret=%d regret_total=%d cross_tenant=%d migration_errors=%d decision=%s hottest=%s",
		fr.Time.Local().Format("15:04:05"), fr.Epoch, fr.Regions, fr.MigrationsPerSec, fr.PromotedPerSec,
		fr.DemotedPerSec, fr.BytesPerSec, fr.Regrets, fr.RegretsTotal, fr.CrossTenant, fr.MigrationErrors,
		seconds(fr.DecisionSeconds), hottest)
}

// topScreen is a frame as the lines of a full screen of height rows.
func topScreen(fr topFrame, height int) []string {
	lines := []string{
		fmt.Sprintf("kvtier top  %s  epoch %d (%s)  up %s  q quits", fr.Time.Local().Format("15:04:05"), fr.Epoch,
			fr.EpochLength, uptime(fr.UptimeSeconds)),
		fmt.Sprintf("migrations/s %.1f (promote %.1f, demote %.1f), %s/s   decision %s",
			fr.MigrationsPerSec, fr.PromotedPerSec, fr.DemotedPerSec, topoBytes(uint64(fr.BytesPerSec)),
			seconds(fr.DecisionSeconds)),
		fmt.Sprintf("regret events %d (%d in all)   cross-tenant evictions %d   move errors %d",
			fr.Regrets, fr.RegretsTotal, fr.CrossTenant, fr.MigrationErrors),
		"",
	}
	recent := recentLines(fr)
	room := max(1, height-len(lines)-len(recent)-2)
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "REGION\tPID\tTENANT\tCLASS\tACCESSES/S\tFAST\tSLOW\tNAME\n")
	for i, r := range fr.Hottest {
		if i >= room {
			break
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%.1f\t%s\t%s\t%s\n", r.ID, r.PID, orDash(r.Tenant), r.Class,
			r.AccessesPerSec, topoBytes(r.FastBytes), topoBytes(r.SlowBytes), orDash(r.Name))
	}
	_ = tw.Flush()
	table := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(fr.Hottest) == 0 {
		table = []string{fmt.Sprintf("no regions (%d registered)", fr.Regions)}
	}
	lines = append(lines, table...)
	return append(append(lines, ""), recent...)
}

func recentLines(fr topFrame) []string {
	if len(fr.Recent) == 0 {
		return []string{"no events yet"}
	}
	out := []string{"latest events:"}
	for _, ev := range fr.Recent {
		out = append(out, "  "+eventLine(ev))
	}
	return out
}
