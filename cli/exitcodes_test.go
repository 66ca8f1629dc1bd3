package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// daemonCommands are the commands that need the daemon.
var daemonCommands = [][]string{{"status"}, {"regions"}, {"placement", "--region", "1"}, {"top", "--count=1"}, {"events", "--count=1"}}

func TestExitCodeNoDaemon(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.sock")
	// A stale socket: the file exists but nothing listens.
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	for _, sock := range []struct{ path, why string }{{missing, "no socket at"}, {stale, "nothing listens on"}} {
		for _, args := range daemonCommands {
			code, out, errs := runCLI(append(args, "--socket", sock.path)...)
			if code != ExitUnreachable || out != "" {
				t.Errorf("%v on %s: exit %d, stdout %q, want %d", args, sock.path, code, out, ExitUnreachable)
			}
			for _, want := range []string{"the kvtier daemon is not running", sock.why + " " + sock.path,
				"systemctl start kvtier", "kvtier daemon"} {
				if !strings.Contains(errs, want) {
					t.Errorf("%v on %s: message %q lacks %q", args, sock.path, errs, want)
				}
			}
		}
	}
}

// TestExitCodePermission runs the built binary as nobody against a socket
// only root may use.
func TestExitCodePermission(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a command as another user needs root")
	}
	bin := kvtierBinary(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "kvtier.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o660); err != nil {
		t.Fatal(err)
	}
	for _, args := range daemonCommands {
		cmd := exec.Command(bin, append(args, "--socket", sock)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitPermission {
			t.Errorf("%v as nobody: %v, want exit %d\n%s", args, err, ExitPermission, stderr.String())
			continue
		}
		for _, want := range []string{"permission denied on the daemon socket " + sock, `group "root"`, "api.group"} {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("%v as nobody: message %q lacks %q", args, stderr.String(), want)
			}
		}
	}
}

func TestPermissionAdvice(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if os.Geteuid() == 0 {
		// A group other than root's: the advice is to join it.
		if err := os.Chown(sock, -1, 65534); err != nil {
			t.Fatal(err)
		}
		got := permissionAdvice(sock)
		if !strings.Contains(got, "join group") || !strings.Contains(got, "usermod -aG") {
			t.Errorf("advice for a group-owned socket: %q", got)
		}
	}
	if got := permissionAdvice(filepath.Join(dir, "nope", "s.sock")); !strings.Contains(got, "directory") {
		t.Errorf("advice for an unsearchable directory: %q", got)
	}
}

func TestDaemonCommandUsage(t *testing.T) {
	tests := []struct {
		args []string
		msg  string
	}{
		{[]string{"placement", "--region", "0"}, "positive region ID"},
		{[]string{"placement", "--region", "2", "--pid", "1"}, "cannot be combined"},
		{[]string{"placement", "--pid", "1", "--width", "3"}, "--width 3"},
		{[]string{"events", "--type", "nope"}, `--type "nope": unknown event type`},
		{[]string{"events", "--count", "-1"}, "--count -1"},
		{[]string{"top", "--interval", "1ms"}, "--interval 1ms"},
		{[]string{"top", "--rows", "0"}, "--rows >= 1"},
		{[]string{"status", "--rate-window", "-1s"}, "--rate-window"},
		{[]string{"regions", "--pid", "-3"}, "--pid -3"},
		{[]string{"status", "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		code, _, errs := runCLI(tt.args...)
		if code != ExitUsage || !strings.Contains(errs, tt.msg) {
			t.Errorf("%v: exit %d %q, want %d and %q", tt.args, code, errs, ExitUsage, tt.msg)
		}
	}
}

// TestPlacementWithoutDaemon queries the test's own memory with no daemon
// listening: the numa path works and the report says the daemon is absent.
func TestPlacementWithoutDaemon(t *testing.T) {
	buf := alignedBuffer(4 << 20)
	touch(buf)
	start := uintptr(unsafe.Pointer(&buf[0]))
	rng := fmt.Sprintf("%x-%x", start, start+uintptr(len(buf)))
	sock := filepath.Join(t.TempDir(), "none.sock")
	code, out, errs := runCLI("placement", "--pid", fmt.Sprint(os.Getpid()), "--range", rng, "--json", "--socket", sock)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep placementReport
	decodeStrict(t, out, &rep, "pid", "comm", "page_size", "regions", "total.pages", "total.per_node", "kv_regions", "daemon")
	present := 0
	for _, n := range rep.Total.PerNode {
		present += n
	}
	pages := len(buf) / rep.PageSize
	if rep.PID != os.Getpid() || rep.Total.Pages != pages || present != pages || rep.Total.NotPresent != 0 {
		t.Errorf("placement of our own %d touched pages: %+v", pages, rep.Total)
	}
	if !strings.Contains(rep.Daemon, "daemon not running") || len(rep.KV) != 0 {
		t.Errorf("daemon note %q, kv %v", rep.Daemon, rep.KV)
	}
	code, out, _ = runCLI("placement", "--pid", fmt.Sprint(os.Getpid()), "--range", rng, "--socket", sock)
	if code != ExitOK || !strings.Contains(out, fmt.Sprintf("total: %d pages in 1 mapping,", pages)) ||
		!strings.Contains(out, "(daemon not running: KV regions not shown)") {
		t.Errorf("text placement without the daemon (exit %d):\n%s", code, out)
	}
	runtime.KeepAlive(buf)
	// The JSON of a report round-trips through the strict decoder.
	b, _ := json.Marshal(rep)
	var again placementReport
	decodeStrict(t, string(b), &again)
}
