package daemon

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// TestMain lets the test binary double as the KV workload (see
// testutil.RunWorkload).
func TestMain(m *testing.M) { testutil.Main(m, map[string]func(){apiClientChild: runAPIClient}) }

// startWorkload starts a child whose buffer is faulted in before its
// address is known.
func startWorkload(t *testing.T) *testutil.Workload {
	return testutil.StartWorkload(t, testutil.WorkloadCmd(os.Args[0], testutil.Touched))
}

// startLazyWorkload starts a child that first touches its buffer on
// FirstTouch, so that a sampler watching it sees page faults.
func startLazyWorkload(t *testing.T) *testutil.Workload {
	return testutil.StartWorkload(t, testutil.WorkloadCmd(os.Args[0], testutil.Lazy))
}

// testDaemon is a daemon running in the test process.
type testDaemon struct {
	d      *Daemon
	client *api.Client
	logs   *testutil.SyncBuffer
	stop   func() // stops the daemon before the test ends (testutil.RunDaemon)
	dir    string
}

// skipUnlessRoot skips tests that need root (BPF, move_pages on another
// process, pidfds of children are fine but samplers are not).
func skipUnlessRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the daemon needs root for its BPF samplers and page queries")
	}
}

// startDaemon runs a daemon with the given config body, a temp socket and
// a free metrics port.
func startDaemon(t testing.TB, src string) *testDaemon {
	t.Helper()
	skipUnlessRoot(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "kvtier.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Record.Dir == DefaultTraceDir {
		cfg.Record.Dir = dir
	}
	if cfg.StateDir == DefaultStateDir {
		cfg.StateDir = dir
	}
	logs := &testutil.SyncBuffer{}
	sock := filepath.Join(dir, "k.sock")
	d, err := New(cfg, Options{Socket: sock, MetricsAddr: "127.0.0.1:0", Version: "test",
		Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	td := &testDaemon{d: d, client: api.NewClient(sock), logs: logs, dir: dir}
	t.Cleanup(td.client.Close) // after the daemon stopped
	td.stop = testutil.RunDaemon(t, d, logs)
	return td
}

// metric scrapes the metrics endpoint and returns the value of the sample
// whose name and labels are exactly sample, e.g. `kvtier_regions` or
// `kvtier_migrated_pages_total{direction="promote"}`.
func metric(t *testing.T, addr, sample string) float64 {
	t.Helper()
	v, ok := scrape(t, addr, sample)
	if !ok {
		t.Fatalf("metric %s not exported", sample)
	}
	return v
}

// scrape returns the value of sample and whether it is exported.
func scrape(t *testing.T, addr, sample string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("metric %s: %q", sample, rest)
			}
			return v, true
		}
	}
	return 0, false
}
