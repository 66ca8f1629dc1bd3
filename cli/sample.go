package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/numa"
)

func init() { register(newSampleCmd) }

type sampleFlags struct {
	sampler   string
	pid       int
	duration  time.Duration
	rng       string
	blockSize uint64
	minSize   uint64
	symbol    string
	abi       string
	period    uint64
	asJSON    bool
}

func newSampleCmd() *cobra.Command {
	var f sampleFlags
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Attach one eBPF sampler to a process and print per-block access counts",
		Long: "Attach one sampler (" + strings.Join(bpf.Names(), ", ") + ") to a process's large\n" +
			"anonymous mappings (or to --range) for --duration and print what the kernel\n" +
			"counted per block: what kvtier sees. Works without the daemon; needs root.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.pid <= 0 {
				return usageError("--pid is required and must be a positive process ID, got %d", f.pid)
			}
			if f.duration <= 0 {
				return usageError("--duration must be positive, got %s", f.duration)
			}
			if f.blockSize == 0 {
				return usageError("--block-size must be positive")
			}
			if !slices.Contains(bpf.Names(), f.sampler) {
				return usageError("--sampler %q: want one of %s", f.sampler, strings.Join(bpf.Names(), ", "))
			}
			regions, err := sampleRegions(f)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			rep, err := runSample(ctx, f, regions)
			if err != nil {
				return withCode(sampleExitCode(err), err)
			}
			return writeSample(cmd.OutOrStdout(), rep, f.asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.sampler, "sampler", "fault", "sampler: "+strings.Join(bpf.Names(), ", "))
	fl.IntVar(&f.pid, "pid", 0, "process to sample")
	fl.DurationVar(&f.duration, "duration", 5*time.Second, "how long to sample")
	fl.StringVar(&f.rng, "range", "", "address range START-END in hex instead of the large anonymous mappings")
	fl.Uint64Var(&f.blockSize, "block-size", 2<<20, "bytes per block")
	fl.Uint64Var(&f.minSize, "min-size", 16<<20, "smallest anonymous mapping sampled (bytes)")
	fl.StringVar(&f.symbol, "symbol", bpf.HintSymbol, "uprobe: the hint function's symbol")
	fl.StringVar(&f.abi, "abi", string(bpf.ABIC), "uprobe: the hint function's calling convention, c or go")
	fl.Uint64Var(&f.period, "period", 0, "perf, sw-page-faults: events per sample (0: the sampler's default)")
	fl.BoolVar(&f.asJSON, "json", false, "print JSON")
	return cmd
}

// sampleRegions picks the regions: --range (clipped to nothing), or every
// anonymous mapping of at least --min-size.
func sampleRegions(f sampleFlags) ([]bpf.Region, error) {
	mk := func(i int, start, end uint64) bpf.Region {
		return bpf.Region{ID: uint32(i + 1), PID: uint32(f.pid), Start: start, End: end, BlockSize: f.blockSize}
	}
	if f.rng != "" {
		r, err := parseAddrRange(f.rng)
		if err != nil {
			return nil, usageError("--range %q: %v", f.rng, err)
		}
		return []bpf.Region{mk(0, uint64(r.Start), uint64(r.End))}, nil
	}
	maps, err := numa.ReadMaps("", f.pid)
	if err != nil {
		// A process that is gone is ExitError, as for placement.
		return nil, withCode(classify(err), err)
	}
	var out []bpf.Region
	for _, m := range maps.AtLeast(f.minSize) {
		if !anonymous(m) || len(out) == bpf.MaxRegionsPerProcess {
			continue
		}
		out = append(out, mk(len(out), uint64(m.Start), uint64(m.End)))
	}
	if len(out) == 0 {
		return nil, withCode(ExitError, fmt.Errorf("pid %d has no anonymous mapping of at least %d bytes (use --min-size or --range)", f.pid, f.minSize))
	}
	return out, nil
}

func anonymous(m numa.Mapping) bool {
	n := m.Name()
	return n == "" || n == "[heap]" || n == "/dev/zero" || // shared anonymous memory
		strings.HasPrefix(n, "[anon:") || strings.HasPrefix(n, "[anon_shmem:") || strings.HasPrefix(n, "memfd:")
}

type sampleCount struct {
	bpf.Count
	Addr uint64 `json:"addr"`
}

type sampleReport struct {
	Sampler string        `json:"sampler"`
	PID     int           `json:"pid"`
	Seconds float64       `json:"seconds"`
	Regions []bpf.Region  `json:"regions"`
	Counts  []sampleCount `json:"counts"`
	Stats   bpf.Stats     `json:"stats"`
}

// runSample watches regions for f.duration, draining every second so the
// kernel map stays small, and merges the epochs.
func runSample(ctx context.Context, f sampleFlags, regions []bpf.Region) (*sampleReport, error) {
	s, err := bpf.Open(f.sampler, bpf.Options{Symbol: f.symbol, ABI: bpf.ABI(f.abi), SamplePeriod: f.period})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for _, r := range regions {
		if err := s.Watch(r); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	merged := map[[2]uint32]bpf.Count{}
	var buf []bpf.Count
	drain := func() error {
		var err error
		if buf, err = s.Drain(buf[:0]); err != nil {
			return err
		}
		mergeCounts(merged, buf)
		return nil
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := time.NewTimer(f.duration)
	defer end.Stop()
loop:
	for {
		select {
		case <-tick.C:
			if err := drain(); err != nil {
				return nil, err
			}
		case <-end.C:
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	if err := drain(); err != nil {
		return nil, err
	}
	st, err := s.Stats()
	if err != nil {
		return nil, err
	}
	rep := &sampleReport{Sampler: f.sampler, PID: f.pid, Seconds: time.Since(start).Seconds(), Regions: regions, Stats: st}
	rep.Counts = addressCounts(regions, merged)
	return rep, nil
}

// mergeCounts adds one drained epoch, buf, into merged, keyed by region and
// block: counters add up and LastSeen keeps the latest, so the report reads
// as one epoch as long as the whole run.
func mergeCounts(merged map[[2]uint32]bpf.Count, buf []bpf.Count) {
	for _, c := range buf {
		k := [2]uint32{c.Region, c.Block}
		m := merged[k]
		m.Region, m.Block = c.Region, c.Block
		m.Accesses += c.Accesses
		m.Reads += c.Reads
		m.Writes += c.Writes
		m.LastSeen = max(m.LastSeen, c.LastSeen)
		merged[k] = m
	}
}

// addressCounts gives each merged count the address of its block in the
// watched regions, sorted by region then block; nil when nothing was seen.
func addressCounts(regions []bpf.Region, merged map[[2]uint32]bpf.Count) []sampleCount {
	byID := map[uint32]bpf.Region{}
	for _, r := range regions {
		byID[r.ID] = r
	}
	var out []sampleCount
	for _, c := range merged {
		r := byID[c.Region]
		out = append(out, sampleCount{Count: c, Addr: r.Start + uint64(c.Block)*r.BlockSize})
	}
	sortCounts(out)
	return out
}

func sortCounts(cs []sampleCount) {
	slices.SortFunc(cs, func(a, b sampleCount) int {
		if c := cmp.Compare(a.Region, b.Region); c != 0 {
			return c
		}
		return cmp.Compare(a.Block, b.Block)
	})
}

func sampleExitCode(err error) int {
	switch {
	case errors.Is(err, bpf.ErrUnknownSampler), errors.Is(err, bpf.ErrBadRegion), errors.Is(err, bpf.ErrBadOption):
		return ExitUsage
	}
	return classify(err)
}

// sampleHint says why a sampler that cannot see steady state counted
// nothing: a busy process re-reading resident memory faults no more.
func sampleHint(rep *sampleReport) string {
	sight, err := bpf.SightOf(rep.Sampler)
	if err != nil || sight.SteadyState || rep.Stats.Matched > 0 {
		return ""
	}
	return fmt.Sprintf("(nothing counted: %s sees only %s; it misses %s. "+
		"Try --sampler damon or perf, which see steady-state accesses.)", rep.Sampler, sight.Sees, sight.Misses)
}

func writeSample(w io.Writer, rep *sampleReport, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(rep)
	}
	st := rep.Stats
	fmt.Fprintf(w, "sampler %s, pid %d, %.1fs: %s, %d counted, %d outside the regions, %d dropped\n",
		rep.Sampler, rep.PID, rep.Seconds, plural(int(st.Events), "event", "events"), st.Matched, st.Outside, st.Drops)
	if hint := sampleHint(rep); hint != "" {
		fmt.Fprintln(w, hint)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REGION\tRANGE\tBLOCK SIZE")
	for _, r := range rep.Regions {
		fmt.Fprintf(tw, "%d\t%#x-%#x\t%d\n", r.ID, r.Start, r.End, r.BlockSize)
	}
	fmt.Fprintln(tw, "\nREGION\tBLOCK\tADDRESS\tACCESSES\tREADS\tWRITES")
	for _, c := range rep.Counts {
		fmt.Fprintf(tw, "%d\t%d\t%#x\t%d\t%d\t%d\n", c.Region, c.Block, c.Addr, c.Accesses, c.Reads, c.Writes)
	}
	return tw.Flush()
}
