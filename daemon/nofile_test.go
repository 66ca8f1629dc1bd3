package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// TestProcErrorOutOfFiles: running out of file descriptors while opening
// or reading a process is the daemon's shortage: 503 naming the limit,
// never a 500, a 404 (the process is there) or a 403.
func TestProcErrorOutOfFiles(t *testing.T) {
	for _, err := range []error{
		fmt.Errorf("pidfd_open(7): %w: %w", numa.ErrNoFiles, syscall.EMFILE),
		fmt.Errorf("reading /proc/7/maps: %w", &fs.PathError{Op: "open", Path: "/proc/7/maps", Err: syscall.EMFILE}),
		&fs.PathError{Op: "open", Path: "/proc/7/stat", Err: syscall.ENFILE},
	} {
		got := procError(7, err)
		var re *reqError
		if !errors.As(got, &re) || re.code != http.StatusServiceUnavailable {
			t.Errorf("procError(%v) = %v, want a 503", err, got)
			continue
		}
		for _, want := range []string{"out of file descriptors", "RLIMIT_NOFILE", "LimitNOFILE"} {
			if !strings.Contains(re.msg, want) {
				t.Errorf("procError(%v) = %q: does not say %q", err, re.msg, want)
			}
		}
	}
}

// TestRegisterOutOfFiles: a registration whose /proc reads run out of file
// descriptors is a 503; the process's live region stays, and the refused
// registration's share of the process's pidfd is released.
func TestRegisterOutOfFiles(t *testing.T) {
	d, _ := fixtureDaemon(t, handleConfig)
	wl := startWorkload(t)
	before := testutil.Pidfds(t)
	half := wl.Size / 2 / 4096 * 4096
	live, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: half, blockSz: 4096,
		source: "test", priority: policy.PriorityNormal, refcount: 1})
	if err != nil {
		t.Fatal(err)
	}
	real := d.auth.creds
	d.auth.creds = func(pid int) (numa.ProcCreds, error) {
		return numa.ProcCreds{}, fmt.Errorf("reading /proc/%d/status: %w", pid,
			&fs.PathError{Op: "open", Path: fmt.Sprintf("/proc/%d/status", pid), Err: syscall.EMFILE})
	}
	_, err = d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr + half, length: half, blockSz: 4096,
		source: "test", priority: policy.PriorityNormal, refcount: 1})
	var re *reqError
	if !errors.As(err, &re) || re.code != http.StatusServiceUnavailable {
		t.Fatalf("registration out of file descriptors: %v, want a 503", err)
	}
	d.auth.creds = real
	d.mu.Lock()
	d.reapLocked()
	_, ok := d.regions[live.ID]
	d.mu.Unlock()
	if !ok {
		t.Fatal("the live region was dropped")
	}
	if got := testutil.Pidfds(t) - before; got != 1 {
		t.Errorf("%d pidfds after the refused registration, want 1 (the live region's)", got)
	}
}

// TestNOFILEBinary runs the kvtier binary with a low NOFILE limit and
// sends it nofileAttempts registrations (nofile_count_test.go) from several connections, of
// pages of many processes, so that it runs out of file descriptors (each
// process with a region holds one pidfd, and every registration reads
// /proc). The daemon must keep serving: every answer is a 201 or a 4xx
// (409 overlap, 429 over a limit) or a 503 (out of file descriptors),
// never a 500; /v1/status answers throughout; and the region registered
// first, of a live process, is still there at the end.
func TestNOFILEBinary(t *testing.T) {
	skipUnlessRoot(t)
	bd, sock := startNOFILEDaemon(t)
	status := unixHTTPClient(sock)
	testutil.Eventually(t, 15*time.Second, "the daemon to answer", func() bool {
		code, _, err := nofileRequest(status, "GET", "/v1/status", "")
		return err == nil && code == http.StatusOK
	})
	live := registerLiveRegion(t, bd, status)

	// More processes than the limit leaves pidfds for, and pages of each
	// to register one at a time.
	const procs, workers, margin = 24, 4, 8
	pids, pages := startSleepers(t, procs)
	clients := make([]*http.Client, workers)
	for i := range clients {
		clients[i] = unixHTTPClient(sock) // one keep-alive connection each, opened now
		if code, _, err := nofileRequest(clients[i], "GET", "/v1/status", ""); err != nil || code != 200 {
			t.Fatalf("worker %d: status %d %v", i, code, err)
		}
	}
	lowerNOFILE(t, bd, margin)

	// /v1/status must answer throughout.
	stop := make(chan struct{})
	statusErr, polls := pollStatus(status, stop)
	start := time.Now()
	codes, bad := registerPages(clients, pids, pages)
	took := time.Since(start)
	close(stop)
	if err := <-statusErr; err != nil {
		t.Errorf("status stopped answering: %v", err)
	}
	t.Logf("%d attempts in %v (%.0f/s): answers %v; %d status polls", nofileAttempts, took.Round(time.Millisecond),
		float64(nofileAttempts)/took.Seconds(), codes, polls.Load())
	for _, b := range bad {
		t.Error(b)
	}
	if codes[http.StatusServiceUnavailable] == 0 {
		t.Errorf("no 503: the daemon never ran out of file descriptors (answers %v)", codes)
	}
	if codes[http.StatusCreated] == 0 {
		t.Errorf("no 201: nothing was registered at the limit (answers %v)", codes)
	}
	if code, body, err := nofileRequest(status, "GET", fmt.Sprintf("/v1/regions/%d", live), ""); err != nil || code != 200 {
		t.Errorf("the live region %d after the attempts: %d %s %v", live, code, body, err)
	}
	select {
	case <-bd.exited:
		t.Fatalf("the daemon exited: %v\n%s", bd.err, bd.logs)
	default:
	}
	if s := bd.logs.String(); strings.Contains(s, "process exited") {
		t.Errorf("a region was dropped as exited:\n%s", s)
	}
}

// startNOFILEDaemon starts the kvtier binary with room for 512 regions,
// 64 a process, so that file descriptors, not the API's limits, run out
// first; it returns the daemon and its socket.
func startNOFILEDaemon(t *testing.T) (*binaryDaemon, string) {
	t.Helper()
	bin := testutil.Binary(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "kvtier.hcl")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`
epoch = "1s"
kernel_tiering = "report"
policy "lru" {}
state_dir = %q
api {
  max_regions = 512
  max_regions_per_process = 64
}
`, dir)), 0o600)
	sock := filepath.Join(dir, "k.sock")
	return startBinaryDaemon(t, bin, "--config", cfgPath, "--socket", sock, "--metrics-addr", "127.0.0.1:0"), sock
}

// registerLiveRegion registers a live workload's buffer while the daemon
// has files to spare and returns the region's ID.
func registerLiveRegion(t *testing.T, bd *binaryDaemon, status *http.Client) uint64 {
	t.Helper()
	wl := startWorkload(t)
	code, body, err := nofileRequest(status, "POST", "/v1/regions",
		fmt.Sprintf(`{"pid": %d, "addr": %d, "length": %d, "block_size": 65536}`, wl.PID(), wl.Addr, wl.Size))
	if err != nil || code != http.StatusCreated {
		t.Fatalf("registering the live region: %d %s %v\n%s", code, body, err, bd.logs)
	}
	var live struct{ ID uint64 }
	if err := json.Unmarshal(body, &live); err != nil {
		t.Fatal(err)
	}
	return live.ID
}

// startSleepers starts n processes that live past the test (killed at
// cleanup) and returns their pids and the mapped pages of each.
func startSleepers(t *testing.T, n int) ([]int, [][]uint64) {
	t.Helper()
	var pages [][]uint64
	var pids []int
	for range n {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		pids = append(pids, cmd.Process.Pid)
	}
	for _, pid := range pids {
		pages = append(pages, mappedPages(t, pid))
	}
	return pids, pages
}

// lowerNOFILE sets the daemon's NOFILE limit to the descriptors it holds
// now and margin more.
func lowerNOFILE(t *testing.T, bd *binaryDaemon, margin int) {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", bd.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	limit := uint64(len(fds) + margin)
	if err := unix.Prlimit(bd.cmd.Process.Pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: limit, Max: limit}, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	t.Logf("daemon pid %d: %d descriptors open, NOFILE lowered to %d", bd.cmd.Process.Pid, len(fds), limit)
}

// pollStatus asks for /v1/status every 20ms until stop is closed. The
// channel it returns is closed then, after carrying the first failed
// answer if there was one; polls counts the answers.
func pollStatus(status *http.Client, stop <-chan struct{}) (<-chan error, *atomic.Int64) {
	statusErr := make(chan error, 1)
	polls := new(atomic.Int64)
	go func() {
		defer close(statusErr)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if code, body, err := nofileRequest(status, "GET", "/v1/status", ""); err != nil || code != 200 {
				statusErr <- fmt.Errorf("GET /v1/status: %d %s %v", code, body, err)
				return
			}
			polls.Add(1)
		}
	}()
	return statusErr, polls
}

// registerPages sends nofileAttempts one-page registrations, round robin
// over the processes pids (whose pages are pages), one worker a client.
// It returns how many answers had each status code and up to 10 answers
// that were neither a 201, a 4xx nor a 503.
func registerPages(clients []*http.Client, pids []int, pages [][]uint64) (map[int]int, []string) {
	procs := len(pids)
	var next atomic.Int64
	var mu sync.Mutex
	codes := map[int]int{}
	var bad []string
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= nofileAttempts {
					return
				}
				p := i % procs
				pg := pages[p][(i/procs)%len(pages[p])]
				body := fmt.Sprintf(`{"pid": %d, "addr": %d, "length": 4096, "block_size": 4096}`, pids[p], pg)
				code, resp, err := nofileRequest(clients[w], "POST", "/v1/regions", body)
				mu.Lock()
				codes[code]++
				ok := err == nil && (code == 201 || code == 503 || code >= 400 && code < 500)
				if !ok && len(bad) < 10 {
					bad = append(bad, fmt.Sprintf("attempt %d: %d %s %v", i, code, resp, err))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return codes, bad
}

// nofileRequest sends one request and reads the answer.
func nofileRequest(hc *http.Client, method, path, body string) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://kvtier"+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// mappedPages returns the first byte of every page of pid's ordinary
// mappings (files, heap, stack, anonymous), not the kernel's special ones.
func mappedPages(t *testing.T, pid int) []uint64 {
	t.Helper()
	maps, err := numa.ReadMaps("", pid)
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, m := range maps {
		if strings.HasPrefix(m.Path, "[v") { // [vdso], [vvar], [vsyscall]
			continue
		}
		for a := uint64(m.Start); a < uint64(m.End); a += uint64(numa.PageSize) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatalf("pid %d maps no page", pid)
	}
	return out
}
