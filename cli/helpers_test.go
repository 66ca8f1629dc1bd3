package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// TestMain lets the test binary double as a KV workload (see
// testutil.RunWorkload; mode "faults": see runFaultWorkload).
func TestMain(m *testing.M) {
	testutil.Main(m, map[string]func(){faultWorkload: runFaultWorkload})
}

// Helpers of testutil under the names the cli tests use.
var (
	alignedBuffer = testutil.AlignedBuffer
	touch         = testutil.Touch
	eventually    = testutil.Eventually
)

// workload is a child process holding a KV buffer (a testutil.Workload).
type workload struct {
	cmd        *exec.Cmd
	addr, size uint64
}

// startWorkload starts a child whose buffer is faulted in before its
// address is printed.
func startWorkload(t *testing.T) *workload { return spawnWorkload(t, testutil.Touched) }

// spawnWorkload starts the test binary as a workload in mode and reads
// its buffer's address and length.
func spawnWorkload(t *testing.T, mode string) *workload {
	t.Helper()
	w := testutil.StartWorkload(t, testutil.WorkloadCmd(os.Args[0], mode))
	return &workload{cmd: w.Cmd, addr: w.Addr, size: w.Size}
}

func (w *workload) pid() int { return w.cmd.Process.Pid }

// testConfig is a daemon with a short epoch and a tenant budget.
const testConfig = `
epoch = "100ms"
sampler "sw-page-faults" {}
policy "lru" {}
budgets {
  tenant "alice" { fast_bytes = "64MiB" }
}
`

// testDaemon is a daemon running in the test process on a temp socket.
type testDaemon struct {
	d      *daemon.Daemon
	socket string
	client *api.Client
	logs   testutil.SyncBuffer
}

// startDaemon runs a daemon in-process with testConfig, a temp socket and
// a free metrics port, and stops it when the test ends.
func startDaemon(t *testing.T) *testDaemon {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the daemon needs root for its BPF sampler and page queries of other processes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "kvtier.hcl")
	if err := os.WriteFile(path, []byte(testConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := daemon.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = dir // never /var/lib/kvtier
	td := &testDaemon{socket: filepath.Join(dir, "kvtier.sock")}
	td.d, err = daemon.New(cfg, daemon.Options{Socket: td.socket, MetricsAddr: "127.0.0.1:0", Version: "test",
		Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: &td.logs, Level: hclog.Info})})
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	td.client = api.NewClient(td.socket)
	t.Cleanup(func() {
		td.client.Close() // after the daemon stopped
		if t.Failed() {
			t.Logf("daemon log:\n%s", td.logs.String())
		}
	})
	testutil.RunDaemon(t, td.d, &td.logs)
	return td
}

// register registers the workload's buffer in 256 KiB blocks.
func (td *testDaemon) register(t *testing.T, wl *workload) api.Region {
	t.Helper()
	reg, err := td.client.Register(context.Background(), api.RegisterRequest{PID: wl.pid(), Addr: wl.addr,
		Length: wl.size, BlockSize: 256 << 10, Tenant: "alice", Class: api.ClassThinkActive,
		Priority: api.PriorityHigh, Pinned: []api.Range{{Offset: 0, Length: 256 << 10}}, Name: "kv"})
	if err != nil {
		t.Fatalf("registering the workload: %v", err)
	}
	return reg
}

// runCLI runs the command line in-process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// decodeStrict decodes exactly one JSON value into v, refusing fields v
// does not have, and checks that the object has every key in required
// (dotted paths into nested objects, e.g. "epoch.count").
func decodeStrict(t *testing.T, data string, v any, required ...string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, data)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", data)
	}
	var generic any
	if err := json.Unmarshal([]byte(data), &generic); err != nil {
		t.Fatal(err)
	}
	for _, key := range required {
		if !hasKey(generic, strings.Split(key, ".")) {
			t.Errorf("%T JSON lacks required field %q:\n%s", v, key, data)
		}
	}
}

// hasKey follows path through objects; a list is checked in every element
// (and must not be empty).
func hasKey(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		next, ok := x[path[0]]
		return ok && hasKey(next, path[1:])
	case []any:
		for _, e := range x {
			if !hasKey(e, path) {
				return false
			}
		}
		return len(x) > 0
	}
	return false
}

// kvtierBinary builds the kvtier binary once per test run (see
// testutil.Binary).
func kvtierBinary(t *testing.T) string { return testutil.Binary(t) }
