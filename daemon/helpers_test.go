package daemon

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// TestMain lets the test binary double as the KV workload: with
// KVTIER_TEST_WORKLOAD set it allocates a buffer, prints its address and
// length, and keeps touching it until killed.
func TestMain(m *testing.M) {
	if os.Getenv("KVTIER_TEST_WORKLOAD") != "" {
		runWorkload()
		return
	}
	os.Exit(m.Run())
}

// workloadBytes is the KV buffer of the test workload.
const workloadBytes = 8 << 20

// alignedBuffer returns a page-aligned buffer of n bytes, untouched.
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
	lazy := os.Getenv("KVTIER_TEST_WORKLOAD") == "lazy"
	if !lazy {
		touch(buf)
	}
	fmt.Printf("%d %d\n", uintptr(unsafe.Pointer(&buf[0])), len(buf))
	if lazy {
		// First touch on a line from stdin, after the test registered
		// the buffer: one page fault per page inside the watched region.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	}
	for {
		touch(buf)
		time.Sleep(20 * time.Millisecond)
	}
}

// workload is a child process with a KV buffer.
type workload struct {
	cmd        *exec.Cmd
	addr, size uint64
	stdin      io.WriteCloser // lazy workloads: a line starts the touching
}

// startWorkload starts a child whose buffer is faulted in before its
// address is known.
func startWorkload(t *testing.T) *workload { return spawnWorkload(t, "1") }

// startLazyWorkload starts a child that first touches its buffer when
// touch is called, so that a sampler watching it sees page faults.
func startLazyWorkload(t *testing.T) *workload { return spawnWorkload(t, "lazy") }

func (w *workload) touch(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
}

func spawnWorkload(t *testing.T, mode string) *workload {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KVTIER_TEST_WORKLOAD="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workload{cmd: cmd, stdin: in}
	t.Cleanup(func() { w.kill() })
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

func (w *workload) kill() {
	if w.cmd.ProcessState == nil {
		_ = w.cmd.Process.Kill()
		_ = w.cmd.Wait()
	}
}

// testDaemon is a daemon running in the test process.
type testDaemon struct {
	d      *Daemon
	client *api.Client
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
	dir    string
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// skipUnlessRoot skips tests that need root (BPF, move_pages on another
// process, pidfds of children are fine but samplers are not).
func skipUnlessRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the daemon needs root for its BPF samplers and page queries")
	}
}

// startDaemon runs a daemon with the given config body, a temp socket and
// a free metrics port.
func startDaemon(t *testing.T, src string) *testDaemon {
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
	logs := &syncBuffer{}
	sock := filepath.Join(dir, "k.sock")
	d, err := New(cfg, Options{Socket: sock, MetricsAddr: "127.0.0.1:0", Version: "test",
		Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	td := &testDaemon{d: d, client: api.NewClient(sock), logs: logs, cancel: cancel, done: make(chan error, 1), dir: dir}
	go func() { td.done <- d.Run(ctx) }()
	select {
	case <-d.Ready():
	case err := <-td.done:
		t.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("daemon not ready after 10s")
	}
	t.Cleanup(func() { td.stop(t) })
	return td
}

func (td *testDaemon) stop(t *testing.T) {
	td.cancel()
	select {
	case err := <-td.done:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
		td.done <- nil
	case <-time.After(10 * time.Second):
		t.Error("daemon did not stop within 10s")
	}
	td.client.Close()
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

// eventually polls cond every 50ms for up to d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
