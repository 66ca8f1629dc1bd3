package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
)

// Options are what the command line gives the daemon besides the config.
type Options struct {
	// Socket and MetricsAddr override the config's api.socket and
	// metrics.listen when not empty.
	Socket      string
	MetricsAddr string
	// LogLevel overrides log.level when not empty (one of LogLevels);
	// LogJSON overrides log.json when not nil. Both hold across reloads.
	LogLevel string
	LogJSON  *bool
	// Logger is the root logger; nil builds one from the config, writing
	// to LogOutput (default stderr).
	Logger    hclog.Logger
	LogOutput io.Writer
	// SysRoot and ProcRoot are where sysfs and procfs are mounted
	// (defaults /sys and /proc).
	SysRoot  string
	ProcRoot string
	// Version is reported by status and the build_info metric.
	Version string
	// Notifier talks to systemd; the zero value does nothing.
	Notifier Notifier
}

// ErrKernelTiering is returned by New when the kernel's own tiering is on
// and the config says kernel_tiering = "refuse".
var ErrKernelTiering = errors.New("kernel tiering is active")

// Daemon is a running kvtier service. Every field below mu is guarded by
// it; the epoch loop releases it while the mover runs.
type Daemon struct {
	opts     Options
	log      hclog.Logger
	metrics  *metrics
	events   *hub
	owners   *ownerIndex // region owners, for the event stream's filters
	auth     authorizer
	procs    numa.ProcessTable // the regions' process handles, one pidfd per process
	start    time.Time
	topo     *numa.Topology
	api      *apiServer
	ready    chan struct{} // closed when the API listens
	stopping chan struct{} // closed when Run begins to stop

	mu         sync.Mutex
	cfg        *Config
	fastNode   int // promotion target
	slowNode   int // demotion target; -1 when the host has no slow node
	moving     bool
	kernel     api.KernelTiering
	planner    *plan.Planner
	mover      *numa.Mover
	samplers   []*samplerState
	sampling   api.SamplingStatus // whether a sampler sees steady-state accesses
	drainBuf   []bpf.Count        // drainLocked's buffer, kept across epochs
	spareMoves []plannedMove      // buildMoves' buffers, handed back by recycleMoves
	spareMplan numa.Plan
	regions    map[uint64]*region
	regionIDs  []uint64 // scratch of sortedRegionIDs
	nextID     uint64
	tenants    map[string]*tenantState // by name; "" is the unnamed tenant
	tenantName map[uint32]string
	nextTenant uint32    // tenant numbers are never reused (traces name them)
	regretWin  []float64 // recent per-epoch regret/demotion pairs
	epochStat  api.EpochStatus
	budgetUse  api.BudgetUse
	speed      moverSpeed // the mover's measured speed, for the plan's size
	recCursor  reconcileCursor
	sweep      sweepCursor          // where the next sweep of idle blocks starts
	recNext    uint64               // the epoch of the next reconcile pass
	recQuiet   int                  // reconcile passes in a row that corrected nothing (up to maxQuiet)
	room       roomCache            // the fast node's room as last read
	backoff    map[int]*nodeBackoff // full nodes backed off from
	rec        *recorder
	closed     bool
	restoring  bool // restoreState runs: no saving until it is done

	// restoreFloor: the IDs above it, up to nextID, are kept for the
	// registrations restoreState restores (see reserveID).
	restoreFloor uint64

	saver stateWriter // writes the registrations file; not guarded by mu
	beat  heartbeat   // the epoch loop's, for the watchdog; not guarded by mu
}

// New builds a daemon from cfg: it reads the topology, checks the kernel's
// tiering, opens the samplers, builds the planner and the mover. Run starts
// serving.
func New(cfg *Config, opts Options) (*Daemon, error) {
	if opts.LogLevel != "" {
		if err := CheckLogLevel(opts.LogLevel); err != nil {
			return nil, err
		}
	}
	cfg = cfg.withOverrides(opts)
	if opts.Logger == nil {
		out := opts.LogOutput
		if out == nil {
			out = os.Stderr
		}
		opts.Logger = NewLogger(cfg.Log, out)
	}
	d := &Daemon{opts: opts, log: opts.Logger, start: time.Now(), cfg: cfg,
		regions: map[uint64]*region{}, tenants: map[string]*tenantState{"": {}}, tenantName: map[uint32]string{0: ""},
		nextTenant: 1,
		slowNode:   -1, backoff: map[int]*nodeBackoff{},
		ready: make(chan struct{}), stopping: make(chan struct{})}
	d.saver.kick = make(chan struct{}, 1)
	d.metrics = newMetrics(opts.Version)
	d.events = newHub(d.metrics.eventsDropped.Inc)
	d.owners = newOwnerIndex()
	d.auth = procAuthorizer(opts.ProcRoot)
	if err := d.setupTopology(); err != nil {
		return nil, err
	}
	if err := d.setupKernel(); err != nil {
		return nil, err
	}
	pc, err := d.plannerConfig(cfg)
	if err != nil {
		return nil, err
	}
	if d.planner, err = plan.New(pc); err != nil {
		return nil, fmt.Errorf("building the planner: %w", err)
	}
	if d.mover, err = numa.NewMover(d.topo, moverConfig(cfg)); err != nil {
		return nil, fmt.Errorf("building the mover: %w", err)
	}
	d.openSamplers()
	d.epochStat.Length = cfg.Epoch.String()
	if cfg.Record.Path != "" {
		if _, err := d.StartTrace(cfg.Record.Path); err != nil {
			d.closeAll()
			return nil, fmt.Errorf("record block of %s: %w", cfg.File, err)
		}
	}
	return d, nil
}

// withOverrides applies the command line's socket, metrics address and
// logging.
func (c *Config) withOverrides(o Options) *Config {
	cp := *c
	if o.Socket != "" {
		cp.API.Socket = o.Socket
	}
	if o.MetricsAddr != "" {
		cp.Metrics.Listen = o.MetricsAddr
	}
	if o.LogLevel != "" {
		cp.Log.Level = o.LogLevel
	}
	if o.LogJSON != nil {
		cp.Log.JSON = *o.LogJSON
	}
	return &cp
}

// now is the daemon's policy clock: nanoseconds since start.
func (d *Daemon) now() policy.Time { return policy.Time(time.Since(d.start)) }

// Ready is closed once the API socket and the metrics listener are open,
// the daemon has logged that it is ready (and, on a one-node host or with
// kernel tiering in report mode, that it moves nothing) and READY=1 has
// been sent to systemd.
func (d *Daemon) Ready() <-chan struct{} { return d.ready }

// Config returns the running config.
func (d *Daemon) Config() *Config {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cfg
}

// Run serves the API and metrics and runs the epoch loop until ctx is
// done, then detaches everything. It returns nil on a clean stop.
func (d *Daemon) Run(ctx context.Context) error {
	srv, err := d.listen()
	if err != nil {
		d.closeAll()
		return err
	}
	d.api = srv
	d.restoreState()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); d.loop(ctx) }()
	go func() { defer wg.Done(); d.scanLoop(ctx) }()
	go func() { defer wg.Done(); d.saveLoop(ctx) }()
	go func() { defer wg.Done(); d.watchdog(ctx, WatchdogInterval()) }()
	// Announce before closing ready: whoever waits on Ready finds the
	// "ready" line and what the daemon does on this host logged, and
	// READY=1 sent to systemd.
	d.announce()
	close(d.ready)
	<-ctx.Done()
	d.log.Info("stopping")
	close(d.stopping)
	_ = d.opts.Notifier.Notify("STOPPING=1")
	srv.shutdown()
	wg.Wait()
	d.closeAll()
	d.log.Info("stopped")
	return nil
}

// announce logs what the daemon does on this host and tells systemd it is
// ready.
func (d *Daemon) announce() {
	d.mu.Lock()
	cfg, single, moving := d.cfg, d.slowNode < 0, d.moving
	d.mu.Unlock()
	opened, failed := samplerNames(d.samplers)
	args := []any{"socket", cfg.API.Socket, "metrics", d.api.metricsAddr(), "policy", cfg.Policy.String(),
		"epoch", cfg.Epoch, "samplers", joinOr(opened, "none")}
	if len(failed) > 0 {
		args = append(args, "samplers_failed", strings.Join(failed, ","))
	}
	d.log.Info("ready", args...)
	if len(opened) == 0 {
		d.log.Warn("no sampler is open: block heat comes from API hints only "+
			"(the sampler lines above and kvtier status say why)", "failed", joinOr(failed, "none"))
	}
	switch {
	case single:
		d.log.Warn("one memory node: every block is in the fast tier and nothing moves; sampling, the API, metrics and the decision loop still run")
	case !moving:
		d.log.Warn("kernel tiering is on and kernel_tiering = \"report\": planning and reporting only, no page moves")
	}
	_ = d.opts.Notifier.Notify("READY=1")
}

// samplerNames returns the names of the samplers that opened (for
// "auto", the one it chose) and of those that did not ("auto" when it
// found none).
func samplerNames(samplers []*samplerState) (opened, failed []string) {
	for _, st := range samplers {
		switch {
		case st.s != nil:
			opened = append(opened, st.name)
		case st.auto:
			failed = append(failed, bpf.Auto)
		default:
			failed = append(failed, st.name)
		}
	}
	return opened, failed
}

// joinOr joins names with commas, or returns none for no names.
func joinOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return strings.Join(names, ",")
}

// closeAll drops every region, closes samplers and the recorder.
func (d *Daemon) closeAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.closed = true
	for _, r := range d.regions {
		d.dropRegionLocked(r, "")
	}
	for _, s := range d.samplers {
		if s.s != nil {
			if err := s.s.Close(); err != nil {
				d.log.Error("closing sampler", "sampler", s.name, "error", err)
			}
		}
	}
	if d.rec != nil {
		if err := d.rec.close(); err != nil {
			d.log.Error("closing trace", "error", err)
		}
		d.rec = nil
	}
	d.events.closeAll()
}
