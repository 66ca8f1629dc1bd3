package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/numa"
)

func init() { register(newPlacementCmd) }

func newPlacementCmd() *cobra.Command {
	var (
		f      clientFlags
		pid    int
		region uint64
		rng    string
		width  int
	)
	cmd := &cobra.Command{
		Use:   "placement (--pid PID [--range START-END] | --region ID)",
		Short: "Show which NUMA node and tier hold a process's or a KV region's memory",
		Long: "With --pid, ask the kernel (move_pages(2) in query mode) where the pages of a\n" +
			"process live, per mapping: pages per node, pages not present, huge-page\n" +
			"backing. With --range only the mappings overlapping START-END (hex) are shown,\n" +
			"clipped to it. This works without the daemon (it needs ptrace access to the\n" +
			"process); when the daemon runs, the KV regions it tracks for the process follow.\n" +
			"With --region, ask the daemon for one region's blocks per node and tier (page by\n" +
			"page, 65536 blocks an answer, all of them).\n" +
			"Each KV region gets a heat strip, one character per group of blocks:\n" +
			"  " + stripLegend,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if width < 8 || width > 512 {
				return usageError("--width %d: want 8 to 512 characters", width)
			}
			if cmd.Flags().Changed("region") {
				if pid != 0 || rng != "" {
					return usageError("--region cannot be combined with --pid or --range")
				}
				return runRegionPlacement(cmd, &f, region, width)
			}
			return runPidPlacement(cmd, &f, pid, rng, width)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&pid, "pid", 0, "process to inspect (works without the daemon)")
	cmd.Flags().StringVar(&rng, "range", "", "with --pid: address range START-END in hex (e.g. 7f0000000000-7f0040000000)")
	cmd.Flags().Uint64Var(&region, "region", 0, "KV region ID to inspect (asks the daemon)")
	cmd.Flags().IntVar(&width, "width", defaultStripWidth, "heat strip width in characters")
	return cmd
}

// runRegionPlacement answers placement --region: one KV region's blocks
// per node and tier, as the daemon reports them.
func runRegionPlacement(cmd *cobra.Command, f *clientFlags, region uint64, width int) error {
	if region == 0 {
		return usageError("--region must be a positive region ID (see `kvtier regions`)")
	}
	kr, err := regionPlacement(cmd.Context(), f, region, width)
	if err != nil {
		return err
	}
	rep := kvPlacementReport{Regions: []kvRegion{kr}}
	if f.asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(rep)
	}
	return writeKVRegions(cmd.OutOrStdout(), rep.Regions)
}

// runPidPlacement answers placement --pid: the kernel's view of where the
// process's pages live, optionally clipped to rng, then the KV regions the
// daemon tracks for it. The daemon is optional: when it cannot be asked,
// the report says why instead of failing.
func runPidPlacement(cmd *cobra.Command, f *clientFlags, pid int, rng string, width int) error {
	if pid <= 0 {
		return usageError("--pid is required (a positive process ID), or --region; got --pid %d", pid)
	}
	var r *addrRange
	if rng != "" {
		parsed, err := parseAddrRange(rng)
		if err != nil {
			return usageError("--range %q: %v", rng, err)
		}
		r = &parsed
	}
	rep, err := pidPlacement(pid, r)
	if err != nil {
		return withCode(placementExitCode(err), err)
	}
	rep.KV, err = pidRegions(cmd.Context(), f, pid, r, width)
	if err != nil {
		rep.KV, rep.Daemon = []kvRegion{}, daemonNote(err)
	}
	return writePlacement(cmd.OutOrStdout(), rep, f.asJSON)
}

// addrRange is [Start, End).
type addrRange struct{ Start, End uintptr }

// parseAddrRange parses "START-END" in hex, with or without 0x.
func parseAddrRange(s string) (addrRange, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return addrRange{}, errors.New("want START-END in hex")
	}
	start, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(a), "0x"), 16, 64)
	if err != nil {
		return addrRange{}, fmt.Errorf("start %q is not a hex address", a)
	}
	end, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(b), "0x"), 16, 64)
	if err != nil {
		return addrRange{}, fmt.Errorf("end %q is not a hex address", b)
	}
	if end <= start {
		return addrRange{}, fmt.Errorf("end %#x is not above start %#x", end, start)
	}
	return addrRange{uintptr(start), uintptr(end)}, nil
}

// placementReport is what `kvtier placement` prints.
type placementReport struct {
	PID       int              `json:"pid"`
	Comm      string           `json:"comm"`
	StartTime uint64           `json:"start_time_ticks"`
	PageSize  int              `json:"page_size"`
	Regions   []numa.Placement `json:"regions"`
	Total     numa.Placement   `json:"total"`
	// KV lists the regions the daemon tracks for the process (empty
	// when the daemon is not reachable; Daemon then says why).
	KV     []kvRegion `json:"kv_regions"`
	Daemon string     `json:"daemon,omitempty"`
}

// kernelMappings are not user memory and cannot be queried.
var kernelMappings = map[string]bool{"[vsyscall]": true, "[vvar]": true, "[vvar_vclock]": true, "[vdso]": true}

// pidPlacement queries the placement of process pid's mappings, all of
// them or those overlapping r (clipped to it), without the daemon. The
// daemon-backed --region mode can reuse it with the region's range.
func pidPlacement(pid int, r *addrRange) (placementReport, error) {
	p, err := numa.OpenProcess(pid)
	if err != nil {
		return placementReport{}, err
	}
	defer p.Close()
	rep := placementReport{PID: pid, Comm: p.Comm(), StartTime: p.StartTime(), PageSize: numa.PageSize,
		Regions: []numa.Placement{}, Total: numa.Placement{PerNode: map[int]int{}}, KV: []kvRegion{}}
	// smaps lists every mapping with its huge-page figures: one read
	// gives both (maps would be a second read of the same list).
	smaps, err := numa.ReadSmaps("", pid)
	if err != nil {
		return rep, err
	}
	if r != nil {
		smaps = slices.DeleteFunc(smaps, func(m numa.MappingBacking) bool { return m.End <= r.Start || r.End <= m.Start })
		if len(smaps) == 0 {
			return rep, fmt.Errorf("pid %d has no mapping in %#x-%#x: %w", pid, r.Start, r.End, numa.ErrBadRange)
		}
	}
	for _, m := range smaps {
		if kernelMappings[m.Path] {
			continue
		}
		start, end := m.Start, m.End
		if r != nil {
			start, end = max(start, r.Start), min(end, r.End)
		}
		pl, err := p.Placement(start, end, 0)
		if err != nil {
			return rep, err
		}
		pl.Name = m.Name()
		// Mappings do not overlap: the figures are this mapping's.
		huge := m.HugeBacking
		pl.Huge = &huge
		rep.Regions = append(rep.Regions, pl)
		addPlacement(&rep.Total, pl)
	}
	if len(rep.Regions) > 0 {
		rep.Total.Start, rep.Total.End = rep.Regions[0].Start, rep.Regions[len(rep.Regions)-1].End
	}
	return rep, nil
}

func addPlacement(total *numa.Placement, pl numa.Placement) {
	total.Pages += pl.Pages
	total.NotPresent += pl.NotPresent
	for n, c := range pl.PerNode {
		total.PerNode[n] += c
	}
	for e, c := range pl.Errnos {
		if total.Errnos == nil {
			total.Errnos = map[string]int{}
		}
		total.Errnos[e] += c
	}
}

// placementExitCode is ExitError for a process that is gone or a range
// it does not map, else the contract's code (classify): ExitPermission
// when /proc or ptrace refuse the caller.
func placementExitCode(err error) int {
	if errors.Is(err, numa.ErrProcessGone) || errors.Is(err, numa.ErrBadRange) {
		return ExitError
	}
	return classify(err)
}

// writePlacement prints a report as a table or JSON.
func writePlacement(w io.Writer, rep placementReport, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(rep)
	}
	fmt.Fprintf(w, "pid %d (%s), started at tick %d, %d-byte pages\n\n", rep.PID, rep.Comm, rep.StartTime, rep.PageSize)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "START\tEND\tSIZE\tNAME\tPAGES\tNOT_PRESENT\tPER_NODE\tOTHER\tHUGE")
	for _, pl := range rep.Regions {
		name := pl.Name
		if name == "" {
			name = "[anon]"
		}
		huge := "-"
		if pl.Huge != nil && pl.Huge.Huge() {
			huge = topoBytes(pl.Huge.AnonHugePages+pl.Huge.ShmemPmd+pl.Huge.FilePmd) + " in THPs"
		}
		fmt.Fprintf(tw, "%#x\t%#x\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", pl.Start, pl.End, topoBytes(uint64(pl.End-pl.Start)),
			name, pl.Pages, pl.NotPresent, perNodeString(pl.PerNode), errnoString(pl.Errnos), huge)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := rep.Total
	if _, err := fmt.Fprintf(w, "\ntotal: %d pages in %s, %s, not present %d, other %s\n",
		t.Pages, plural(len(rep.Regions), "mapping", "mappings"), perNodeString(t.PerNode), t.NotPresent, errnoString(t.Errnos)); err != nil {
		return err
	}
	switch {
	case rep.Daemon != "":
		_, err := fmt.Fprintf(w, "\n(%s)\n", rep.Daemon)
		return err
	case len(rep.KV) == 0:
		_, err := fmt.Fprintln(w, "\nno KV regions registered with the daemon for this process")
		return err
	}
	fmt.Fprintln(w)
	return writeKVRegions(w, rep.KV)
}

func perNodeString(m map[int]int) string {
	return countsString(m, func(id int) string { return "node" + strconv.Itoa(id) })
}

func errnoString(m map[string]int) string {
	return countsString(m, func(k string) string { return k })
}

// countsString formats m as "key=n,..." sorted by key, or "-" when empty.
func countsString[K cmp.Ordered](m map[K]int, name func(K) string) string {
	if len(m) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, name(k)+"="+strconv.Itoa(m[k]))
	}
	return strings.Join(parts, ",")
}
