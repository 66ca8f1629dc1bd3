package numa

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Environment of TestPeerProcessChild.
const (
	envPeerSock = "KVTIER_TEST_PEER_SOCK" // connect to this socket
	envPeerWait = "KVTIER_TEST_PEER_WAIT" // then wait for stdin's end before exiting
)

// TestPeerProcessChild is not a test: run by TestPeerProcess* as a child
// (the test binary again), it connects to $KVTIER_TEST_PEER_SOCK, writes
// a byte and exits, after stdin's end if $KVTIER_TEST_PEER_WAIT is set.
func TestPeerProcessChild(t *testing.T) {
	sock := os.Getenv(envPeerSock)
	if sock == "" {
		t.Skip("the child of TestPeerProcessExited")
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		os.Exit(2)
	}
	c.Write([]byte{1})
	if os.Getenv(envPeerWait) != "" {
		io.Copy(io.Discard, os.Stdin)
	}
	os.Exit(0)
}

// peerListen listens on a socket in a temp dir.
func peerListen(t *testing.T) (net.Listener, string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, sock
}

// peerChild starts TestPeerProcessChild connecting to sock and returns
// the accepted connection, once the child wrote its byte.
func peerChild(t *testing.T, ln net.Listener, sock string, wait bool) (*exec.Cmd, io.WriteCloser, net.Conn) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPeerProcessChild$")
	cmd.Env = append(os.Environ(), envPeerSock+"="+sock)
	if wait {
		cmd.Env = append(cmd.Env, envPeerWait+"=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		t.Fatalf("reading the child's byte: %v", err)
	}
	return cmd, stdin, conn
}

// peerProcess is PeerProcess, skipping the test where the kernel lacks
// SO_PEERPIDFD.
func peerProcess(t *testing.T, conn net.Conn) (*Process, error) {
	t.Helper()
	p, err := PeerProcess(conn)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks SO_PEERPIDFD (Linux < 6.5): %v", err)
	}
	return p, err
}

// TestPeerProcessSelf: a connection this process made names this process.
func TestPeerProcessSelf(t *testing.T) {
	ln, sock := peerListen(t)
	go func() {
		if c, err := net.Dial("unix", sock); err == nil {
			t.Cleanup(func() { c.Close() })
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p, err := peerProcess(t, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	self := openSkip(t, os.Getpid())
	if p.PID() != os.Getpid() || p.StartTime() != self.StartTime() {
		t.Errorf("PeerProcess = pid %d start %d, want this process (pid %d start %d)",
			p.PID(), p.StartTime(), os.Getpid(), self.StartTime())
	}
	if err := p.Check(); err != nil {
		t.Errorf("Check of this process: %v", err)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := PeerProcess(a); !errors.Is(err, ErrNoPeerCred) {
		t.Errorf("PeerProcess(pipe) = %v, want ErrNoPeerCred", err)
	}
}

// TestPeerProcessExits: the handle taken while the peer lives says when
// it exits (then /proc/PID may be another process's).
func TestPeerProcessExits(t *testing.T) {
	ln, sock := peerListen(t)
	cmd, stdin, conn := peerChild(t, ln, sock, true)
	p, err := peerProcess(t, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.PID() != cmd.Process.Pid {
		t.Errorf("PeerProcess pid %d, want the child's %d", p.PID(), cmd.Process.Pid)
	}
	if p.Exited() {
		t.Fatal("the peer counts as exited while it waits")
	}
	stdin.Close()
	cmd.Wait()
	if !p.Exited() {
		t.Error("the peer does not count as exited after it exited")
	}
	if err := p.Check(); !errors.Is(err, ErrProcessGone) {
		t.Errorf("Check after the peer exited: %v, want ErrProcessGone", err)
	}
}

// TestPeerProcessExited: a peer that exited before the handle was asked
// for is ErrProcessGone, whether the kernel refuses the pidfd or gives one
// of an exited process.
func TestPeerProcessExited(t *testing.T) {
	ln, sock := peerListen(t)
	cmd, _, conn := peerChild(t, ln, sock, false)
	cmd.Wait()
	p, err := peerProcess(t, conn)
	if err == nil {
		p.Close()
		t.Fatal("PeerProcess of an exited peer succeeded")
	}
	if !errors.Is(err, ErrProcessGone) {
		t.Errorf("PeerProcess of an exited peer: %v, want ErrProcessGone", err)
	}
}

func TestDecodePeerPidfdErrno(t *testing.T) {
	tests := []struct {
		errno unix.Errno
		want  error
	}{
		{unix.ENOPROTOOPT, ErrNotSupported}, // Linux < 6.5: fall back to SO_PEERCRED alone
		{unix.ENODATA, ErrNoPeerCred},
		{unix.ESRCH, ErrProcessGone},
		{unix.EINVAL, ErrProcessGone},
		{unix.EMFILE, ErrNoFiles},
	}
	for _, tt := range tests {
		if err := decodePeerPidfdErrno(tt.errno); !errors.Is(err, tt.want) {
			t.Errorf("decodePeerPidfdErrno(%v) = %v, want %v", tt.errno, err, tt.want)
		}
	}
}
