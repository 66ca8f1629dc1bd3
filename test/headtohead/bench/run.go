package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kvtier/kvtier/test/guest"
	"github.com/kvtier/kvtier/test/headtohead/report"
)

// Options configure a benchmark run.
type Options struct {
	// Root is the module root.
	Root    string
	Configs []Config
	Phases  Phases
	Kernel  guest.Kernel
	// Topology is a file name under test/topologies without .json.
	Topology string
	// Trace is the Mooncake trace; TraceLines how many of its first lines
	// go into the guest (0: all).
	Trace      string
	TraceLines int
	// Prebuilt is a directory of binaries to use instead of building
	// them (kvtier, probe, hhwork; those missing are built).
	Prebuilt string
	// LogDir receives each guest's console as CONFIG.log ("" keeps none).
	LogDir string
	// Log receives progress lines (nil: none).
	Log io.Writer
	// Timeout limits each boot (0: the phases plus 6 minutes).
	Timeout time.Duration
	// ProfileDir, if set, receives a Go CPU profile of each kvtier
	// daemon as CONFIG.pprof (the daemon's --cpu-profile; it adds the
	// profiler's own cost, about 1%, to the daemon's CPU time).
	ProfileDir string
}

// bench is a run under way.
type bench struct {
	opt   Options
	bin   string
	trace []byte
	topo  *guest.Topology
}

// Run builds the guest once and boots one guest per configuration, in
// sequence. A configuration whose guest failed is reported with its
// errors; the error returned is about the run as a whole.
func Run(ctx context.Context, opt Options) (*report.Results, error) {
	b := &bench{opt: opt}
	if b.opt.Log == nil {
		b.opt.Log = io.Discard
	}
	var err error
	if b.topo, err = guest.LoadTopology(filepath.Join(opt.Root, "test", "topologies", opt.Topology+".json")); err != nil {
		return nil, err
	}
	if b.trace, err = traceHead(opt.Trace, opt.TraceLines); err != nil {
		return nil, err
	}
	if b.bin, err = os.MkdirTemp("", "kvtier-hh-"); err != nil {
		return nil, err
	}
	defer os.RemoveAll(b.bin)
	b.logf("building kvtier, probe and hhwork (CGO_ENABLED=0)")
	if err := Build(opt.Root, b.bin, opt.Prebuilt); err != nil {
		return nil, err
	}
	res := &report.Results{Started: time.Now().UTC(), Commit: commit(opt.Root), Kernel: opt.Kernel.Package,
		Topology: opt.Topology, Workload: opt.Phases.Flags()}
	for _, c := range opt.Configs {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		run := b.runOne(ctx, c)
		if c.Mode == ModeKvtier {
			b.predict(&run)
		}
		res.Runs = append(res.Runs, run)
	}
	res.Targets = Targets(res.Runs)
	return res, nil
}

// predict asks the simulator what share of the run's trace replay the
// daemon's policy and budget serve from the fast tier.
func (b *bench) predict(run *report.Run) {
	if run.Workload == nil || run.Workload.Replay == nil || run.Workload.Replay.Reads == 0 {
		return
	}
	s := simHCL
	s.Kvtier = filepath.Join(b.bin, "kvtier")
	s.Epoch = max(1, int(b.opt.Phases.ReplayRate))
	s.Start = run.Workload.Replay.StartNode0
	s.FastBytes = int64(max(len(s.Start), 1)) * s.BlockSize // the node's room: what it held
	if c, err := Lookup([]string{run.Config}); err == nil && c[0].FastBytes > 0 {
		s.FastBytes = min(s.FastBytes, c[0].FastBytes)
	}
	share, cmd, err := s.Predict(b.trace, run.Workload.Replay.Reads, b.bin)
	run.SimCommand = cmd
	if err != nil {
		run.Errors = append(run.Errors, "simulating the replay: "+err.Error())
		return
	}
	run.SimShare = &share
	b.logf("%s: kvtier sim predicts %.3f of the replay's reads from the fast tier (live %.3f)", run.Config, share, run.Workload.Replay.Node0Share)
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.opt.Log, "bench: "+format+"\n", args...)
}

// runOne boots configuration c and collects what it produced.
func (b *bench) runOne(ctx context.Context, c Config) report.Run {
	run := report.Run{Config: c.Name, About: c.About, Tuning: c.Tuning}
	hcl, note := b.hclFor(c)
	run.Note = note
	initrd := filepath.Join(b.bin, "initrd-"+c.Name+".gz")
	if err := b.initramfs(c, hcl, initrd); err != nil {
		run.Errors = append(run.Errors, err.Error())
		return run
	}
	timeout := b.opt.Timeout
	if timeout <= 0 {
		timeout = time.Duration(b.opt.Phases.GuestSeconds()*float64(time.Second)) + 6*time.Minute
	}
	b.logf("%s: booting %s on %s (limit %s)", c.Name, b.topo.Name, b.opt.Kernel.Package, timeout)
	m := &guest.Machine{Kernel: b.opt.Kernel.Vmlinuz, Initrd: initrd, Topology: b.topo, Timeout: timeout}
	stop := make(chan struct{})
	others := watchGuests(stop)
	boot, err := m.Run(ctx)
	close(stop)
	if n := <-others; n > 0 {
		run.Errors = append(run.Errors, fmt.Sprintf("%d other QEMU guest(s) ran on the host during this boot: its timings are skewed", n))
	}
	os.Remove(initrd)
	run.Wall = boot.Wall.Seconds()
	b.saveLog(c.Name, boot.Console)
	if err != nil {
		run.Errors = append(run.Errors, err.Error())
	}
	if boot.ResultsErr != nil {
		run.Errors = append(run.Errors, "results: "+boot.ResultsErr.Error())
	}
	if boot.Results != nil {
		collect(&run, boot.Results)
		if err := b.saveProfile(c.Name, boot.Results); err != nil {
			run.Errors = append(run.Errors, err.Error())
		}
	}
	b.logf("%s: done in %.0fs: %s", c.Name, run.Wall, oneLine(&run))
	return run
}

// hclFor returns the kvtier config file of c. A daemon that does not
// accept it (sampler "auto" before the daemon knows it) gets
// kvtier-damon's instead, and the note says so.
func (b *bench) hclFor(c Config) (string, string) {
	if c.HCL == "" {
		return "", ""
	}
	hcl := filepath.Join(b.opt.Root, "test", "headtohead", "configs", c.HCL+".hcl")
	out, err := exec.Command(filepath.Join(b.bin, "kvtier"), "daemon", "--check", "--config", hcl).CombinedOutput()
	if err == nil || c.HCL == "kvtier-damon" {
		return hcl, ""
	}
	b.logf("%s: the daemon rejects %s (%s); running kvtier-damon's config", c.Name, c.HCL, strings.TrimSpace(string(out)))
	return filepath.Join(b.opt.Root, "test", "headtohead", "configs", "kvtier-damon.hcl"),
		"this kvtier rejected " + c.HCL + ".hcl (" + strings.TrimSpace(string(out)) + "): ran kvtier-damon.hcl instead"
}

func (b *bench) saveLog(name string, console []byte) {
	if b.opt.LogDir == "" {
		return
	}
	if err := os.MkdirAll(b.opt.LogDir, 0o755); err == nil {
		_ = os.WriteFile(filepath.Join(b.opt.LogDir, name+".log"), console, 0o644)
	}
}

// saveProfile writes the daemon's CPU profile, if the guest recorded one.
func (b *bench) saveProfile(name string, rs *guest.Results) error {
	r, ok := rs.Get("cpu-profile")
	if b.opt.ProfileDir == "" || !ok {
		return nil
	}
	if err := os.MkdirAll(b.opt.ProfileDir, 0o755); err != nil {
		return fmt.Errorf("saving the CPU profile of %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(b.opt.ProfileDir, name+".pprof"), r.Output, 0o644); err != nil {
		return fmt.Errorf("saving the CPU profile of %s: %w", name, err)
	}
	return nil
}

// commit names the module's commit, with -dirty when the tree differs.
func commit(root string) string {
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
