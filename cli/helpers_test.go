package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/cli/clitest"
	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// TestMain lets the test binary double as a KV workload: with
// KVTIER_TEST_WORKLOAD set it maps a buffer, prints its address and length
// and keeps touching it until killed (mode "faults": see runFaultWorkload).
func TestMain(m *testing.M) {
	switch os.Getenv("KVTIER_TEST_WORKLOAD") {
	case "":
	case faultWorkload:
		runFaultWorkload()
		return
	default:
		runWorkload()
		return
	}
	code := m.Run()
	clitest.Cleanup()
	os.Exit(code)
}

const workloadBytes = 8 << 20

// alignedBuffer returns a page-aligned buffer of n bytes.
func alignedBuffer(n int) []byte {
	raw := make([]byte, n+numa.PageSize)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % uintptr(numa.PageSize)); r != 0 {
		off = numa.PageSize - r
	}
	return raw[off : off+n]
}

func touch(buf []byte) {
	for i := 0; i < len(buf); i += numa.PageSize {
		buf[i]++
	}
}

func runWorkload() {
	buf := alignedBuffer(workloadBytes)
	touch(buf)
	fmt.Printf("%d %d\n", uintptr(unsafe.Pointer(&buf[0])), len(buf))
	for {
		touch(buf)
		time.Sleep(20 * time.Millisecond)
	}
}

// workload is a child process holding a KV buffer.
type workload struct {
	cmd        *exec.Cmd
	addr, size uint64
}

// startWorkload starts a child whose buffer is faulted in before its
// address is printed.
func startWorkload(t *testing.T) *workload { return spawnWorkload(t, "1") }

// spawnWorkload starts the test binary as a workload in mode and reads
// its buffer's address and length.
func spawnWorkload(t *testing.T, mode string) *workload {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KVTIER_TEST_WORKLOAD="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workload{cmd: cmd}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the workload's buffer address: %v", err)
	}
	if _, err := fmt.Sscan(line, &w.addr, &w.size); err != nil {
		t.Fatalf("workload printed %q: %v", line, err)
	}
	return w
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
	logs   clitest.SyncBuffer
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
	td := &testDaemon{socket: filepath.Join(dir, "kvtier.sock")}
	td.d, err = daemon.New(cfg, daemon.Options{Socket: td.socket, MetricsAddr: "127.0.0.1:0", Version: "test",
		Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: &td.logs, Level: hclog.Info})})
	if err != nil {
		t.Fatalf("daemon.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- td.d.Run(ctx) }()
	select {
	case <-td.d.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("daemon Run: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("daemon not ready after 10s")
	}
	td.client = api.NewClient(td.socket)
	t.Cleanup(func() {
		td.client.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("daemon Run returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("daemon did not stop within 10s")
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", td.logs.String())
		}
	})
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

// eventually polls cond until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kvtierBinary builds the kvtier binary once per test run (see
// clitest.Binary), except in -short mode.
func kvtierBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("building the kvtier binary is skipped in -short mode")
	}
	return clitest.Binary(t)
}
