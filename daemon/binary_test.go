package daemon

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

func TestBinaryCheck(t *testing.T) {
	bin := testutil.Binary(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	os.WriteFile(bad, []byte("epoch = \"1s\"\nbudgets {\n  fast_bytes = \"lots\"\n}\n"), 0o600)
	out, err := exec.Command(bin, "daemon", "--check", "--config", bad).CombinedOutput()
	var ee *exec.ExitError
	// A bad config is a failure (exit 1), not a usage error (the README's
	// exit-code table).
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("--check of a bad config: %v, want exit 1\n%s", err, out)
	}
	if !strings.Contains(string(out), bad+":3:16: Invalid size: fast_bytes") {
		t.Fatalf("--check output lacks the position:\n%s", out)
	}
	// A sampler option bpf would refuse at Open is a config error.
	abi := filepath.Join(dir, "abi.hcl")
	os.WriteFile(abi, []byte("sampler \"uprobe\" {\n  abi = \"fortran\"\n}\n"), 0o600)
	out, err = exec.Command(bin, "daemon", "--check", "--config", abi).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), abi+":2:9: Invalid sampler parameter") {
		t.Fatalf("--check of a bad sampler abi: %v, want exit 1 at %s:2:9\n%s", err, abi, out)
	}
	good := filepath.Join(dir, "good.hcl")
	os.WriteFile(good, []byte(testConfig), 0o600)
	if out, err := exec.Command(bin, "daemon", "--check", "--config", good).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "config is valid") {
		t.Fatalf("--check of a good config: %v\n%s", err, out)
	}
}

// TestBinaryDaemon runs the built binary against a workload: API round
// trip, metrics, SIGHUP (bad, then good) and SIGTERM.
func TestBinaryDaemon(t *testing.T) {
	skipUnlessRoot(t)
	bin := testutil.Binary(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "kvtier.hcl")
	os.WriteFile(cfgPath, []byte(persistConfig(dir)), 0o600) // never /var/lib/kvtier
	sock := filepath.Join(dir, "k.sock")
	bd := startBinaryDaemon(t, bin, "--config", cfgPath, "--socket", sock, "--metrics-addr", "127.0.0.1:0")
	logs, cmd := bd.logs, bd.cmd
	metricsRE := regexp.MustCompile(`metrics=(127\.0\.0\.1:\d+)`)
	testutil.Eventually(t, 15*time.Second, "the daemon to be ready", func() bool { return metricsRE.MatchString(logs.String()) })
	maddr := metricsRE.FindStringSubmatch(logs.String())[1]
	if !strings.Contains(logs.String(), "one memory node") && !strings.Contains(logs.String(), "slow_node=") {
		t.Errorf("log does not say what the daemon does on this host:\n%s", logs)
	}

	c := api.NewClient(sock)
	defer c.Close()
	ctx := context.Background()
	wl := startWorkload(t)
	reg, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size, Tenant: "alice"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	if _, err := c.Hints(ctx, reg.ID, api.HintsRequest{Blocks: []uint64{0, 1}}); err != nil {
		t.Fatal(err)
	}
	if v := metric(t, maddr, "kvtier_hint_blocks_total"); v != 2 {
		t.Errorf("kvtier_hint_blocks_total = %v, want 2", v)
	}
	if _, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: 4096, Length: 4096}); !isStatus(err, 400) {
		t.Errorf("registering an unmapped range = %v, want 400", err)
	}

	os.WriteFile(cfgPath, []byte("policy \"nope\" {}\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	testutil.Eventually(t, 5*time.Second, "the failed reload to be logged", func() bool {
		return strings.Contains(logs.String(), "reload failed") && strings.Contains(logs.String(), "kvtier.hcl:1:1")
	})
	os.WriteFile(cfgPath, []byte(strings.Replace(persistConfig(dir), `policy "lru"`, `policy "fifo"`, 1)), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	testutil.Eventually(t, 5*time.Second, "the reload", func() bool {
		p, err := c.Policy(ctx)
		return err == nil && p.Name == "fifo"
	})
	if r, err := c.Region(ctx, reg.ID); err != nil || r.Accesses < 2 {
		t.Errorf("region after reload = %+v, %v; want its state kept", r, err)
	}

	bd.stop(t)
	if !strings.Contains(logs.String(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", logs)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s left behind: %v", sock, err)
	}
}

// binaryDaemon is the kvtier binary running as a daemon.
type binaryDaemon struct {
	cmd    *exec.Cmd
	logs   *testutil.SyncBuffer // its stderr
	exited chan struct{}        // closed when it exited; then err is Wait's
	err    error
}

// startBinaryDaemon runs `bin daemon args...`; it is killed when the test
// ends unless it exited.
func startBinaryDaemon(t *testing.T, bin string, args ...string) *binaryDaemon {
	t.Helper()
	bd := &binaryDaemon{cmd: exec.Command(bin, append([]string{"daemon"}, args...)...), logs: &testutil.SyncBuffer{},
		exited: make(chan struct{})}
	bd.cmd.Stderr = bd.logs
	if err := bd.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { bd.err = bd.cmd.Wait(); close(bd.exited) }()
	t.Cleanup(func() {
		select {
		case <-bd.exited:
		default:
			_ = bd.cmd.Process.Kill()
			<-bd.exited
		}
	})
	return bd
}

// stop sends SIGTERM and fails t unless the daemon exits cleanly within
// 10s.
func (bd *binaryDaemon) stop(t *testing.T) {
	t.Helper()
	_ = bd.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-bd.exited:
		if bd.err != nil {
			t.Fatalf("daemon exited with %v after SIGTERM\n%s", bd.err, bd.logs)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("daemon did not stop 10s after SIGTERM\n%s", bd.logs)
	}
}
