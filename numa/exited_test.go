package numa

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestExitedClosedHandle: a closed handle no longer vouches for its PID,
// so it counts as gone (poll(2) ignores a pidfd of -1, which made it look
// alive), and so do Check and Maps.
func TestExitedClosedHandle(t *testing.T) {
	p := openSkip(t, os.Getpid())
	if p.Exited() {
		t.Fatal("Exited() of this process before Close")
	}
	p.Close()
	if !p.Exited() {
		t.Error("Exited() of a closed handle = false, want true")
	}
	if err := p.Check(); !errors.Is(err, ErrProcessGone) {
		t.Errorf("Check() of a closed handle = %v, want ErrProcessGone", err)
	}
	if _, err := p.Maps(); !errors.Is(err, ErrProcessGone) {
		t.Errorf("Maps() of a closed handle = %v, want ErrProcessGone", err)
	}
}

// zombie starts a child, kills it and leaves it unreaped until cleanup:
// its PID stays but it has no address space.
func zombie(t *testing.T) int {
	t.Helper()
	child := startChild(t)
	pid := child.Process.Pid
	waitExec(t, pid, "sleep")
	child.Process.Kill()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		if st, err := ReadStat(DefaultProcRoot, pid); err == nil && st.State == 'Z' {
			return pid
		}
	}
	t.Fatalf("pid %d did not become a zombie within 10s", pid)
	return 0
}

// TestMoveErrnoEINVAL: move_pages(2) answers EINVAL both for a node
// beyond MAX_NUMNODES and for a process without an address space (a
// zombie). The first is ErrNoNode, the second ErrProcessGone, never "node
// out of range".
func TestMoveErrnoEINVAL(t *testing.T) {
	requireRoot(t)
	buf := testBuffer(t, 1)
	pages := []uintptr{bufAddr(buf)}
	tests := []struct {
		name string
		pid  func(t *testing.T) int
		node int
		want error
		not  error
	}{
		{"zombie, node 0", zombie, 0, ErrProcessGone, ErrNoNode},
		{"live, node out of range", func(*testing.T) int { return os.Getpid() }, 1 << 20, ErrNoNode, ErrProcessGone},
		{"self, node out of range", func(*testing.T) int { return 0 }, 1 << 20, ErrNoNode, ErrProcessGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid := tt.pid(t)
			status := make([]PageStatus, len(pages))
			_, err := MovePages(context.Background(), pid, pages, tt.node, status, MoveOptions{})
			if !errors.Is(err, tt.want) || errors.Is(err, tt.not) {
				t.Errorf("MovePages(pid %d, node %d) = %v, want %v and not %v", pid, tt.node, err, tt.want, tt.not)
			}
		})
	}
}
