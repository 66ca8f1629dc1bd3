package api

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestClientUnreachable(t *testing.T) {
	dir := t.TempDir()
	missing := NewClient(filepath.Join(dir, "missing.sock"))
	if _, err := missing.Status(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Status on a missing socket = %v, want ErrUnreachable", err)
	}

	// A socket file nobody listens on any more: connection refused.
	path := filepath.Join(dir, "stale.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := NewClient(path).Status(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Status on a stale socket = %v, want ErrUnreachable", err)
	}
}

func TestClientPermission(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root bypasses socket permissions; the daemon tests cover mode and group")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "k.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := NewClient(path).Status(context.Background()); !errors.Is(err, ErrPermission) {
		t.Fatalf("Status on a mode-0 socket = %v, want ErrPermission", err)
	}
}

func TestNewClientDefault(t *testing.T) {
	if got := NewClient("").Socket(); got != DefaultSocket {
		t.Fatalf("NewClient(\"\").Socket() = %q, want %q", got, DefaultSocket)
	}
}
