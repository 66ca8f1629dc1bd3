package systemd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// startWorkload runs a copy of the test binary as a workload child (see
// testutil.RunWorkload) as nobody, so that only the daemon's capabilities
// let it see the process.
func startWorkload(t *testing.T) (pid int, addr, size uint64) {
	t.Helper()
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	// Next to the kvtier binary, in a directory nobody may search (the
	// test binary's own directory is not).
	path := filepath.Join(filepath.Dir(kvtierBinary(t)), "workload")
	if _, err := os.Stat(path); err != nil {
		if err := os.WriteFile(path, self, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := testutil.WorkloadCmd(path, testutil.Touched)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	w := testutil.StartWorkload(t, cmd)
	return w.PID(), w.Addr, w.Size
}

// setprivArgs turns the unit's capabilities and secure bits into setpriv
// options (systemd's names to util-linux's), leaving out drop.
func setprivArgs(t *testing.T, u unit, drop string) []string {
	caps := []string{}
	for _, c := range u.words("Service", "AmbientCapabilities") {
		if c != drop {
			caps = append(caps, "+"+strings.ToLower(strings.TrimPrefix(c, "CAP_")))
		}
	}
	set := "-all"
	if len(caps) > 0 {
		set += "," + strings.Join(caps, ",")
	}
	bounding := []string{}
	for _, c := range u.words("Service", "CapabilityBoundingSet") {
		if c != drop {
			bounding = append(bounding, "+"+strings.ToLower(strings.TrimPrefix(c, "CAP_")))
		}
	}
	bits := []string{}
	for _, b := range u.words("Service", "SecureBits") {
		bits = append(bits, "+"+strings.ReplaceAll(b, "-", "_"))
	}
	args := []string{"--bounding-set", "-all," + strings.Join(bounding, ","), "--inh-caps", set, "--ambient-caps", set}
	if len(bits) > 0 {
		args = append(args, "--securebits", strings.Join(bits, ","))
	}
	if u.last("Service", "NoNewPrivileges") == "yes" {
		args = append(args, "--nnp")
	}
	return args
}

// capsConfig makes the daemon give its socket a group (CAP_CHOWN).
const capsConfig = `
epoch = "100ms"
sampler "sw-page-faults" {}
policy "lru" {}
api {
  group = "65534"
}
`

// capsRun is what a daemon under a capability set managed to do.
type capsRun struct {
	started, registered, placed, sampled bool
	log                                  string
}

func runWithCaps(t *testing.T, setpriv string, u unit, drop string) capsRun {
	t.Helper()
	bin := kvtierBinary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "kvtier.hcl")
	if err := os.WriteFile(cfg, []byte(capsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "kvtier.sock")
	args := append(setprivArgs(t, u, drop), bin, "daemon", "--config", cfg, "--socket", sock, "--metrics-addr", "127.0.0.1:0")
	cmd := exec.Command(setpriv, args...)
	var logs testutil.SyncBuffer // written by the daemon while the test reads it
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	var r capsRun
	c := api.NewClient(sock)
	defer c.Close()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := c.Status(ctx); err == nil {
			r.started = true
			break
		}
		select {
		case <-exited:
			r.log = logs.String()
			return r
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !r.started {
		t.Fatalf("daemon under %v neither started nor exited:\n%s", args, logs.String())
	}
	pid, addr, size := startWorkload(t)
	reg, err := c.Register(ctx, api.RegisterRequest{PID: pid, Addr: addr, Length: size, BlockSize: 1 << 20})
	r.registered = err == nil
	if r.registered {
		_, err = c.Placement(ctx, reg.ID)
		r.placed = err == nil
	}
	st, err := c.Status(ctx)
	r.sampled = err == nil && len(st.Samplers) == 1 && st.Samplers[0].Error == ""
	r.log = logs.String()
	return r
}

// TestUnitCapabilities runs the daemon with exactly the unit's capability
// set and secure bits (through setpriv, as systemd would set them up) and
// checks that it samples, registers a region of another user's process and
// queries its placement; then that each capability is needed.
func TestUnitCapabilities(t *testing.T) {
	needRoot(t, "setting capability sets")
	setpriv := need(t, "setpriv", "util-linux")
	u := parseUnit(t, "kvtier.service")
	full := runWithCaps(t, setpriv, u, "")
	if !full.started || !full.registered || !full.placed || !full.sampled {
		t.Fatalf("with the unit's capabilities: %+v\n%s", full, full.log)
	}
	tests := []struct {
		drop  string
		check func(capsRun) bool
		what  string
	}{
		{"CAP_BPF", func(r capsRun) bool { return r.started && !r.sampled }, "the BPF sampler fails"},
		{"CAP_PERFMON", func(r capsRun) bool { return r.started && !r.sampled }, "the BPF sampler fails"},
		{"CAP_SYS_PTRACE", func(r capsRun) bool { return r.started && !(r.registered && r.placed) },
			"another user's process cannot be inspected"},
		{"CAP_CHOWN", func(r capsRun) bool { return !r.started && strings.Contains(r.log, "chown") }, "the socket cannot get its group"},
	}
	for _, tt := range tests {
		t.Run("without "+tt.drop, func(t *testing.T) {
			r := runWithCaps(t, setpriv, u, tt.drop)
			if !tt.check(r) {
				t.Errorf("without %s want: %s; got %+v\n%s", tt.drop, tt.what, r, r.log)
			}
		})
	}
	// CAP_SYS_NICE is for process_madvise and moving shared pages of other
	// processes: nothing moves on a one-node host, so it is not exercised.
}
