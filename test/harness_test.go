//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvtier/kvtier/test/guest"
)

// env is what TestMain prepared for every scenario.
var env struct {
	kernels  guest.Kernels
	bin      string // directory of the static binaries
	cacheDir string
	// kvtierCommands are the subcommands the kvtier binary has, so a
	// scenario can require a command's result once the command exists.
	kvtierCommands map[string]bool
}

// boots records the wall time of every guest for the summary.
var boots struct {
	sync.Mutex
	list []bootTiming
}

type bootTiming struct {
	Name        string  `json:"name"`
	Kernel      string  `json:"kernel"`
	Topology    string  `json:"topology"`
	WallSeconds float64 `json:"wall_seconds"`
	// GuestStart is the guest's uptime when /init began its scenario.
	GuestStart float64 `json:"guest_uptime_start_seconds"`
	GuestEnd   float64 `json:"guest_uptime_end_seconds"`
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	env.cacheDir = filepath.Join(wd, ".cache")
	start := time.Now()
	if env.kernels, err = guest.PrepareHost(wd); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if env.bin, err = os.MkdirTemp("", "kvtier-e2e-"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(env.bin)
	if err := guest.BuildPrograms(filepath.Dir(wd), env.bin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	env.kvtierCommands = listCommands(filepath.Join(env.bin, "kvtier"))
	fmt.Printf("e2e: host prepared in %s (kernels %s)\n", time.Since(start).Round(time.Millisecond), kernelList())
	rc := m.Run()
	writeTimings()
	return rc
}

func kernelList() string {
	var s []string
	for _, k := range env.kernels {
		s = append(s, k.Package)
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// listCommands returns the subcommands `kvtier --help` lists.
func listCommands(kvtier string) map[string]bool {
	out, _ := exec.Command(kvtier, "--help").Output()
	cmds := map[string]bool{}
	inList := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "Available Commands:"):
			inList = true
		case inList && strings.HasPrefix(line, "  "):
			cmds[strings.Fields(line)[0]] = true
		case inList:
			inList = false
		}
	}
	return cmds
}

// scenario is one guest boot: a kernel series, a topology, a script from
// test/scenarios and its settings.
type scenario struct {
	name     string // used for log file names
	kernel   string // "6.12" or "6.1"
	topology string // file name under test/topologies without .json
	script   string // file name under test/scenarios
	env      map[string]string
	timeout  time.Duration
	// files are further files for the initramfs (configs).
	files []guest.Item
}

// run is a finished boot with its parsed results.
type run struct {
	t       *testing.T
	sc      scenario
	topo    *guest.Topology
	kernel  guest.Kernel
	boot    *guest.Boot
	results *guest.Results
	logPath string
}

// boot runs the scenario in a guest and fails the test (with the console
// log) if the guest did not finish its script.
func boot(t *testing.T, sc scenario) *run {
	t.Helper()
	k, err := env.kernels.Get(sc.kernel)
	if err != nil {
		t.Fatal(err)
	}
	topo, err := guest.LoadTopology(filepath.Join("topologies", sc.topology+".json"))
	if err != nil {
		t.Fatal(err)
	}
	initrd := filepath.Join(t.TempDir(), "initrd.gz")
	if err := buildInitramfs(sc, initrd); err != nil {
		t.Fatal(err)
	}
	timeout := sc.timeout
	if timeout == 0 {
		timeout = 4 * time.Minute
	}
	m := &guest.Machine{Kernel: k.Vmlinuz, Initrd: initrd, Topology: topo, Timeout: timeout}
	b, err := runGuest(t, m, sc.name)
	r := &run{t: t, sc: sc, topo: topo, kernel: k, boot: b, results: b.Results}
	r.logPath = filepath.Join(env.cacheDir, "logs", sc.name+".log")
	if os.Getenv("E2E_REPLAY") == "" {
		r.recordTiming()
	}
	t.Logf("guest %s: %s on %s, wall %.1fs", sc.name, topo.Name, k.Package, b.Wall.Seconds())
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("E2E_REPLAY") == "" {
			r.saveLog()
			t.Logf("guest console log: %s (last lines, cut to 240 columns)\n%s", r.logPath, tail(r.boot.Console, 40))
		}
	})
	switch {
	case err != nil:
		r.fatal("boot failed: %v", err)
	case b.ResultsErr != nil:
		r.fatal("results: %v", b.ResultsErr)
	case b.Results.ExitCode != 0:
		r.fatal("scenario script exited with %d", b.Results.ExitCode)
	}
	if os.Getenv("E2E_KEEP_LOGS") == "1" {
		r.saveLog()
	}
	return r
}

// runGuest boots the machine (or replays a saved console under E2E_REPLAY).
// A guest whose kernel died before the scenario began is booted once more:
// under TCG the kernel's early code has oopsed on its own (an int3 in
// sched_clock_cpu at 1.8 s of boot) before any kvtier code ran.
func runGuest(t *testing.T, m *guest.Machine, name string) (*guest.Boot, error) {
	t.Helper()
	if dir := os.Getenv("E2E_REPLAY"); dir != "" {
		return replay(filepath.Join(dir, name+".log"))
	}
	b, err := m.Run(context.Background())
	if !guest.DiedBeforeScenario(b.Console) {
		return b, err
	}
	t.Logf("guest %s: kernel died before the scenario began, booting once more; its console's last lines:\n%s",
		name, tail(b.Console, 15))
	return m.Run(context.Background())
}

func buildInitramfs(sc scenario, out string) error {
	initScript, err := os.ReadFile(filepath.Join("scenarios", "init.sh"))
	if err != nil {
		return err
	}
	var envFile strings.Builder
	keys := make([]string, 0, len(sc.env))
	for k := range sc.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&envFile, "export %s='%s'\n", k, sc.env[k])
	}
	items := []guest.Item{
		{Path: "bin/kvtier", Source: filepath.Join(env.bin, "kvtier")},
		{Path: "bin/workload", Source: filepath.Join(env.bin, "workload")},
		{Path: "bin/probe", Source: filepath.Join(env.bin, "probe")},
		{Path: "scenario.sh", Source: filepath.Join("scenarios", sc.script), Mode: 0o644},
		{Path: "lib.sh", Source: filepath.Join("scenarios", "lib.sh"), Mode: 0o644},
		{Path: "scenario.env", Data: []byte(envFile.String())},
	}
	r := &guest.Initramfs{Busybox: guest.DefaultBusybox, Init: string(initScript), Items: append(items, sc.files...)}
	return r.WriteFile(out)
}

// replay reads a kept console log instead of booting (E2E_REPLAY=DIR), to
// re-check a scenario's assertions without a guest.
func replay(path string) (*guest.Boot, error) {
	console, err := os.ReadFile(path)
	if err != nil {
		return &guest.Boot{}, fmt.Errorf("E2E_REPLAY: %w", err)
	}
	b := &guest.Boot{Console: console}
	b.Results, b.ResultsErr = guest.ParseResults(console)
	return b, nil
}

// configs are config files of test/configs installed as /etc/kvtier/NAME.
func configs(names ...string) []guest.Item {
	items := make([]guest.Item, 0, len(names))
	for _, n := range names {
		items = append(items, guest.Item{Path: "etc/kvtier/" + n, Source: filepath.Join("configs", n), Mode: 0o644})
	}
	return items
}

func (r *run) recordTiming() {
	bt := bootTiming{Name: r.sc.name, Kernel: r.kernel.Package, Topology: r.topo.Name, WallSeconds: r.boot.Wall.Seconds()}
	if r.results != nil {
		bt.GuestStart = r.uptime("uptime-start")
		bt.GuestEnd = r.uptime("uptime-end")
	}
	boots.Lock()
	boots.list = append(boots.list, bt)
	boots.Unlock()
}

func (r *run) uptime(step string) float64 {
	res, ok := r.results.Get(step)
	if !ok {
		return 0
	}
	var v float64
	fmt.Sscan(string(res.Output), &v)
	return v
}

func (r *run) saveLog() {
	if err := os.MkdirAll(filepath.Dir(r.logPath), 0o755); err == nil {
		_ = os.WriteFile(r.logPath, r.boot.Console, 0o644)
	}
}

// with returns the run reporting to t (a subtest).
func (r *run) with(t *testing.T) *run {
	c := *r
	c.t = t
	return &c
}

// fatal fails the test; the cleanup prints the console.
func (r *run) fatal(format string, a ...any) {
	r.t.Helper()
	r.t.Fatalf("guest %s: %s", r.sc.name, fmt.Sprintf(format, a...))
}

// step returns a step's result, failing if it is missing or exited non-zero.
func (r *run) step(name string) *guest.Result {
	r.t.Helper()
	res, ok := r.results.Get(name)
	if !ok {
		r.fatal("step %s missing from the results", name)
	}
	if res.RC != 0 {
		r.fatal("step %s exited with %d (console line %d); output %q", name, res.RC, res.Line, res.Output)
	}
	return res
}

// decode decodes a successful step's JSON output into v.
func (r *run) decode(name string, v any) {
	r.t.Helper()
	if err := r.step(name).JSON(v); err != nil {
		r.fatal("%v", err)
	}
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 240 {
			lines[i] = l[:240] + "..."
		}
	}
	return strings.Join(lines, "\n")
}

// writeTimings prints every boot's wall time and writes them to
// test/.cache/e2e-timings.json.
func writeTimings() {
	boots.Lock()
	defer boots.Unlock()
	total := 0.0
	for _, b := range boots.list {
		fmt.Printf("e2e boot %-28s %-34s wall %6.1fs  guest init at %5.1fs, done at %5.1fs\n",
			b.Name, b.Kernel, b.WallSeconds, b.GuestStart, b.GuestEnd)
		total += b.WallSeconds
	}
	fmt.Printf("e2e: %d boots, %.1fs of guest wall time\n", len(boots.list), total)
	if data, err := json.MarshalIndent(boots.list, "", "  "); err == nil {
		_ = os.WriteFile(filepath.Join(env.cacheDir, "e2e-timings.json"), append(data, '\n'), 0o644)
	}
}
