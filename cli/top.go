package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kvtier/kvtier/daemon/api"
)

func init() { register(newTopCmd) }

// minTopInterval keeps top from hammering the daemon with a short epoch.
const minTopInterval = 100 * time.Millisecond

type topFlags struct {
	clientFlags
	interval time.Duration
	count    int
	rows     int
}

func newTopCmd() *cobra.Command {
	var f topFlags
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Live view of the hottest regions, migrations per second and regret events",
		Long: "Refresh every epoch (or --interval): the hottest regions by sampled and hinted\n" +
			"accesses per second, block migrations per second by direction, regret events\n" +
			"and cross-tenant evictions, and the latest events. Quit with q or Ctrl-C.\n" +
			"When stdout is not a terminal, top prints one plain line per refresh (with\n" +
			"--json one JSON object per refresh).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.interval != 0 && f.interval < minTopInterval {
				return usageError("--interval %v: want at least %v", f.interval, minTopInterval)
			}
			if f.count < 0 || f.rows < 1 {
				return usageError("--count must be >= 0 and --rows >= 1")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runTop(ctx, &f, cmd.OutOrStdout())
		},
	}
	f.add(cmd)
	cmd.Flags().DurationVar(&f.interval, "interval", 0, "refresh interval (default: the daemon's epoch)")
	cmd.Flags().IntVar(&f.count, "count", 0, "exit after this many refreshes (0: until q or Ctrl-C)")
	cmd.Flags().IntVar(&f.rows, "rows", 10, "hottest regions to show")
	return cmd
}

// topFrame is one refresh of top.
type topFrame struct {
	Time             time.Time   `json:"time"`
	IntervalSeconds  float64     `json:"interval_seconds"`
	Epoch            uint64      `json:"epoch"`
	EpochLength      string      `json:"epoch_length"`
	UptimeSeconds    float64     `json:"uptime_seconds"`
	DecisionSeconds  float64     `json:"decision_seconds"`
	Regions          int         `json:"regions"`
	MigrationsPerSec float64     `json:"migrations_per_sec"` // blocks moved, both directions
	PromotedPerSec   float64     `json:"promoted_per_sec"`
	DemotedPerSec    float64     `json:"demoted_per_sec"`
	BytesPerSec      float64     `json:"migrated_bytes_per_sec"`
	Regrets          uint64      `json:"regret_events"` // in this interval
	RegretsTotal     uint64      `json:"regret_events_total"`
	CrossTenant      uint64      `json:"cross_tenant_evictions"`
	MigrationErrors  uint64      `json:"migration_errors"`
	Hottest          []topRegion `json:"hottest"`
	Recent           []api.Event `json:"recent_events"`
}

// topRegion is one row of the hottest regions.
type topRegion struct {
	ID             uint64  `json:"id"`
	PID            int     `json:"pid"`
	Tenant         string  `json:"tenant"`
	Class          string  `json:"class"`
	AccessesPerSec float64 `json:"accesses_per_sec"`
	FastBytes      uint64  `json:"fast_bytes"`
	SlowBytes      uint64  `json:"slow_bytes"`
	Name           string  `json:"name,omitempty"`
}

// topCounts accumulates the event stream between refreshes.
type topCounts struct {
	mu                        sync.Mutex
	promoted, demoted         int
	bytes                     int64
	regrets, cross, migErrors uint64
	regretsTotal              uint64
	recent                    []api.Event
	streamErr                 error
}

const topRecent = 5

func (c *topCounts) add(ev api.Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Type {
	case api.EventMigration:
		if ev.Direction == "demote" {
			c.demoted += ev.Blocks
		} else {
			c.promoted += ev.Blocks
		}
		c.bytes += ev.Bytes
	case api.EventRegret:
		c.regrets++
		c.regretsTotal++
	case api.EventCrossTenantEvict:
		c.cross++
	case api.EventMigrationError:
		c.migErrors++
	}
	c.recent = append(c.recent, ev)
	if len(c.recent) > topRecent {
		c.recent = c.recent[len(c.recent)-topRecent:]
	}
	return nil
}

// take fills the event part of a frame over secs seconds and resets the
// interval's counts.
func (c *topCounts) take(fr *topFrame, secs float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if secs > 0 {
		fr.PromotedPerSec = float64(c.promoted) / secs
		fr.DemotedPerSec = float64(c.demoted) / secs
		fr.MigrationsPerSec = fr.PromotedPerSec + fr.DemotedPerSec
		fr.BytesPerSec = float64(c.bytes) / secs
	}
	fr.Regrets, fr.RegretsTotal, fr.CrossTenant, fr.MigrationErrors = c.regrets, c.regretsTotal, c.cross, c.migErrors
	fr.Recent = append([]api.Event{}, c.recent...)
	c.promoted, c.demoted, c.bytes, c.regrets, c.cross, c.migErrors = 0, 0, 0, 0, 0, 0
	return c.streamErr
}

// topSample is what top reads from the daemon at each refresh.
type topSample struct {
	at      time.Time
	status  api.Status
	regions []api.Region
}

func readTopSample(ctx context.Context, c *api.Client) (topSample, error) {
	st, err := call(ctx, c, (*api.Client).Status)
	if err != nil {
		return topSample{}, err
	}
	rs, err := call(ctx, c, (*api.Client).Regions)
	return topSample{at: time.Now(), status: st, regions: rs}, err
}

// newTopFrame compares two samples: accesses per second of each region
// present in both, hottest first.
func newTopFrame(prev, cur topSample, rows int) topFrame {
	secs := cur.at.Sub(prev.at).Seconds()
	fr := topFrame{Time: cur.at, IntervalSeconds: secs, Epoch: cur.status.Epoch.Count, EpochLength: cur.status.Epoch.Length,
		UptimeSeconds: cur.status.UptimeSeconds, DecisionSeconds: cur.status.Epoch.DecisionSeconds,
		Regions: len(cur.regions), Hottest: []topRegion{}}
	before := map[uint64]uint64{}
	for _, r := range prev.regions {
		before[r.ID] = r.Accesses
	}
	for _, r := range cur.regions {
		tr := topRegion{ID: r.ID, PID: r.PID, Tenant: r.Tenant, Class: r.Class, FastBytes: r.FastBytes,
			SlowBytes: r.SlowBytes, Name: r.Name}
		if b, ok := before[r.ID]; ok && secs > 0 && r.Accesses >= b {
			tr.AccessesPerSec = float64(r.Accesses-b) / secs
		}
		fr.Hottest = append(fr.Hottest, tr)
	}
	sort.SliceStable(fr.Hottest, func(i, j int) bool {
		a, b := fr.Hottest[i], fr.Hottest[j]
		if a.AccessesPerSec != b.AccessesPerSec {
			return a.AccessesPerSec > b.AccessesPerSec
		}
		return a.ID < b.ID
	})
	if len(fr.Hottest) > rows {
		fr.Hottest = fr.Hottest[:rows]
	}
	return fr
}

// runTop refreshes until ctx is done, q is pressed or --count frames.
func runTop(ctx context.Context, f *topFlags, w io.Writer) error {
	c := f.client()
	defer c.Close()
	prev, err := readTopSample(ctx, c)
	if err != nil {
		return err
	}
	interval := f.interval
	if interval == 0 {
		d, err := time.ParseDuration(prev.status.Epoch.Length)
		if err != nil {
			d = time.Second
		}
		interval = max(d, minTopInterval)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counts := &topCounts{}
	go func() {
		err := c.Events(ctx, counts.add)
		if err != nil && ctx.Err() == nil {
			counts.mu.Lock()
			counts.streamErr = daemonError(c.Socket(), err)
			counts.mu.Unlock()
		}
	}()
	out, restore, err := topOutput(w, cancel)
	if err != nil {
		return err
	}
	defer restore()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for n := 0; f.count == 0 || n < f.count; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		cur, err := readTopSample(ctx, c)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		fr := newTopFrame(prev, cur, f.rows)
		if err := counts.take(&fr, fr.IntervalSeconds); err != nil {
			return err
		}
		if err := out.frame(fr, f.asJSON); err != nil {
			return err
		}
		prev = cur
	}
	return nil
}

// topWriter draws frames on a terminal or as plain lines.
type topWriter struct {
	w      io.Writer
	tty    bool
	width  int
	height int
}

// topOutput decides how to draw: full-screen when w is a terminal (with
// stdin in raw mode, when it is a terminal too, to catch q and Ctrl-C,
// which cancel), plain lines otherwise. restore undoes the terminal
// changes.
func topOutput(w io.Writer, cancel context.CancelFunc) (*topWriter, func(), error) {
	tw := &topWriter{w: w, width: 80, height: 24}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return tw, func() {}, nil
	}
	tw.tty = true
	if cols, rows, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 && rows > 0 {
		tw.width, tw.height = cols, rows
	}
	restore := func() { fmt.Fprint(w, "\x1b[?25h\r\n") }
	in := int(os.Stdin.Fd())
	if term.IsTerminal(in) {
		old, err := term.MakeRaw(in)
		if err != nil {
			return nil, nil, fmt.Errorf("putting the terminal in raw mode: %w", err)
		}
		restore = func() {
			fmt.Fprint(w, "\x1b[?25h\r\n")
			_ = term.Restore(in, old)
		}
		go readKeys(os.Stdin, cancel)
	}
	fmt.Fprint(w, "\x1b[?25l") // hide the cursor while drawing
	return tw, restore, nil
}

// readKeys cancels on q, Q, Ctrl-C or Ctrl-D, or when stdin ends.
func readKeys(r io.Reader, cancel context.CancelFunc) {
	buf := make([]byte, 16)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b == 'q' || b == 'Q' || b == 3 || b == 4 {
				cancel()
				return
			}
		}
		if err != nil {
			cancel()
			return
		}
	}
}

func (t *topWriter) frame(fr topFrame, asJSON bool) error {
	switch {
	case asJSON:
		return json.NewEncoder(t.w).Encode(fr)
	case !t.tty:
		_, err := fmt.Fprintln(t.w, topLine(fr))
		return err
	}
	lines := topScreen(fr, t.height)
	for i, l := range lines {
		if r := []rune(l); len(r) > t.width {
			lines[i] = string(r[:t.width])
		}
	}
	_, err := fmt.Fprint(t.w, "\x1b[H\x1b[2J"+strings.Join(lines, "\r\n"))
	return err
}
