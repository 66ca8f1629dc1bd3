package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kvtier/kvtier/numa"
)

// codeOf is the HTTP status of an API error, 0 for nil.
func codeOf(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var re *reqError
	if !errors.As(err, &re) {
		t.Fatalf("%v: not an API error", err)
	}
	return re.code
}

// TestMayActPeer: with the caller's own process handle (SO_PEERPIDFD), the
// caller may act on itself, and use CAP_SYS_PTRACE read from its /proc
// entry, only while that process lives: once it exited, its PID (and so
// what /proc says of it) may be another process's.
func TestMayActPeer(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	pid := child.Process.Pid
	peer, err := numa.OpenProcess(pid) // what withPeer takes from the connection
	if errors.Is(err, numa.ErrNotSupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	a := fakeProcs{0: procCreds(0, 0, ^uint64(0)), pid: procCreds(1000, 1000, 1<<numa.CapSysPtrace),
		102: procCreds(2000, 2000, 0)}.authorizer()
	c := caller{pid: pid, uid: 1000, gid: 1000, peer: peer}
	if err := a.mayAct(c, pid); err != nil {
		t.Errorf("itself, alive: %v", err)
	}
	if err := a.mayAct(c, 102); err != nil {
		t.Errorf("CAP_SYS_PTRACE, alive: %v", err)
	}
	child.Process.Kill()
	child.Wait()
	if code := codeOf(t, a.mayAct(c, pid)); code != http.StatusForbidden {
		t.Errorf("itself after it exited: %d, want 403", code)
	}
	if code := codeOf(t, a.mayAct(c, 102)); code != http.StatusForbidden {
		t.Errorf("CAP_SYS_PTRACE read after the caller exited: %d, want 403", code)
	}

	// No handle for want of file descriptors: 503; for another reason: 403.
	emfile := fmt.Errorf("getsockopt SO_PEERPIDFD: %w", &fs.PathError{Op: "x", Path: "y", Err: syscall.EMFILE})
	for _, tt := range []struct {
		err  error
		code int
	}{{emfile, http.StatusServiceUnavailable}, {numa.ErrProcessGone, http.StatusForbidden}} {
		c := caller{pid: 100, uid: 1000, gid: 1000, peerErr: tt.err}
		if code := codeOf(t, a.mayAct(c, 100)); code != tt.code {
			t.Errorf("itself without a handle (%v): %d, want %d", tt.err, code, tt.code)
		}
	}
	// Without SO_PEERPIDFD (no handle, no error) the PID is trusted.
	if err := a.mayAct(caller{pid: 100, uid: 1000, gid: 1000}, 100); err != nil {
		t.Errorf("itself without SO_PEERPIDFD: %v", err)
	}
}

// TestWithPeer takes the peer handle from a real connection (this process
// on both ends): a caller whose SO_PEERCRED pid is the connecting process
// gets its handle; root needs none.
func TestWithPeer(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := httptest.NewRequest("POST", "/v1/regions", nil)
	req = req.WithContext(connContext(context.Background(), conn))
	if _, err := numa.PeerProcess(conn); errors.Is(err, numa.ErrNotSupported) {
		t.Skipf("kernel lacks SO_PEERPIDFD: %v", err)
	}

	user := caller{pid: os.Getpid(), uid: 1000, gid: 1000}
	c, release := withPeer(req, user)
	if c.peer == nil || c.peerErr != nil || c.peer.PID() != os.Getpid() {
		t.Errorf("withPeer = peer %v, error %v; want this process", c.peer, c.peerErr)
	}
	if err := c.alive(os.Getpid()); err != nil {
		t.Errorf("alive: %v", err)
	}
	release()
	if !c.peer.Exited() {
		t.Error("release left the handle open")
	}

	// SO_PEERCRED and SO_PEERPIDFD disagreeing (cannot happen, but the
	// caller would not be known): refused.
	c, release = withPeer(req, caller{pid: 1, uid: 1000, gid: 1000})
	defer release()
	if c.peer != nil || codeOf(t, c.alive(1)) != http.StatusForbidden {
		t.Errorf("a pid the connection's pidfd does not name: peer %v, alive %v", c.peer, c.alive(1))
	}

	c, release = withPeer(req, rootCaller)
	defer release()
	if c.peer != nil || c.peerErr != nil {
		t.Errorf("root: peer %v, error %v; want none taken", c.peer, c.peerErr)
	}
}
