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
)

// buildKvtier builds the kvtier binary into a temp dir.
func buildKvtier(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: building the kvtier binary takes a while")
	}
	bin := filepath.Join(t.TempDir(), "kvtier")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/kvtier/kvtier")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building kvtier: %v\n%s", err, out)
	}
	return bin
}

func TestBinaryCheck(t *testing.T) {
	bin := buildKvtier(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	os.WriteFile(bad, []byte("epoch = \"1s\"\nbudgets {\n  fast_bytes = \"lots\"\n}\n"), 0o600)
	out, err := exec.Command(bin, "daemon", "--check", "--config", bad).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("--check of a bad config: %v, want exit 2\n%s", err, out)
	}
	if !strings.Contains(string(out), bad+":3:16: Invalid size: fast_bytes") {
		t.Fatalf("--check output lacks the position:\n%s", out)
	}
	// A sampler option bpf would refuse at Open is a config error.
	abi := filepath.Join(dir, "abi.hcl")
	os.WriteFile(abi, []byte("sampler \"uprobe\" {\n  abi = \"fortran\"\n}\n"), 0o600)
	out, err = exec.Command(bin, "daemon", "--check", "--config", abi).CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), abi+":2:9: Invalid sampler parameter") {
		t.Fatalf("--check of a bad sampler abi: %v, want exit 2 at %s:2:9\n%s", err, abi, out)
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
	bin := buildKvtier(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "kvtier.hcl")
	os.WriteFile(cfgPath, []byte(testConfig), 0o600)
	sock := filepath.Join(dir, "k.sock")
	logs := &syncBuffer{}
	cmd := exec.Command(bin, "daemon", "--config", cfgPath, "--socket", sock, "--metrics-addr", "127.0.0.1:0")
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()
	metricsRE := regexp.MustCompile(`metrics=(127\.0\.0\.1:\d+)`)
	eventually(t, 15*time.Second, "the daemon to be ready", func() bool { return metricsRE.MatchString(logs.String()) })
	maddr := metricsRE.FindStringSubmatch(logs.String())[1]
	if !strings.Contains(logs.String(), "one memory node") && !strings.Contains(logs.String(), "slow_node=") {
		t.Errorf("log does not say what the daemon does on this host:\n%s", logs)
	}

	c := api.NewClient(sock)
	defer c.Close()
	ctx := context.Background()
	wl := startWorkload(t)
	reg, err := c.Register(ctx, api.RegisterRequest{PID: wl.pid(), Addr: wl.addr, Length: wl.size, Tenant: "alice"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	if _, err := c.Hints(ctx, reg.ID, api.HintsRequest{Blocks: []uint64{0, 1}}); err != nil {
		t.Fatal(err)
	}
	if v := metric(t, maddr, "kvtier_hint_blocks_total"); v != 2 {
		t.Errorf("kvtier_hint_blocks_total = %v, want 2", v)
	}
	if _, err := c.Register(ctx, api.RegisterRequest{PID: wl.pid(), Addr: 4096, Length: 4096}); !isStatus(err, 400) {
		t.Errorf("registering an unmapped range = %v, want 400", err)
	}

	os.WriteFile(cfgPath, []byte("policy \"nope\" {}\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, 5*time.Second, "the failed reload to be logged", func() bool {
		return strings.Contains(logs.String(), "reload failed") && strings.Contains(logs.String(), "kvtier.hcl:1:1")
	})
	os.WriteFile(cfgPath, []byte(strings.Replace(testConfig, `policy "lru"`, `policy "fifo"`, 1)), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, 5*time.Second, "the reload", func() bool {
		p, err := c.Policy(ctx)
		return err == nil && p.Name == "fifo"
	})
	if r, err := c.Region(ctx, reg.ID); err != nil || r.Accesses < 2 {
		t.Errorf("region after reload = %+v, %v; want its state kept", r, err)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("daemon exited with %v after SIGTERM\n%s", err, logs)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("daemon did not stop 10s after SIGTERM\n%s", logs)
	}
	if !strings.Contains(logs.String(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", logs)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket %s left behind: %v", sock, err)
	}
}
