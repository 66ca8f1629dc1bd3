package numa

import (
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/kvtier/kvtier/internal/testutil"
)

// tableOpen opens pid through tab, skipping without pidfd_open.
func tableOpen(t *testing.T, tab *ProcessTable, pid int) *Process {
	t.Helper()
	p, err := tab.Open(pid)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks pidfd_open(2): %v", err)
	}
	if err != nil {
		t.Fatalf("Open(%d): %v", pid, err)
	}
	return p
}

// TestProcessTableShares: handles on one process share one pidfd, each is
// closed on its own (twice does nothing), and the pidfd closes with the
// last.
func TestProcessTableShares(t *testing.T) {
	var tab ProcessTable
	before := testutil.Pidfds(t)
	var hs []*Process
	for range 50 {
		hs = append(hs, tableOpen(t, &tab, os.Getpid()))
	}
	if n := testutil.Pidfds(t) - before; n != 1 {
		t.Fatalf("50 handles on one process hold %d pidfds, want 1", n)
	}
	if tab.Len() != 1 {
		t.Errorf("Len() = %d, want 1", tab.Len())
	}
	for _, h := range hs[:49] {
		h.Close()
		h.Close() // a second Close must not release another handle's share
	}
	last := hs[49]
	if err := last.Check(); err != nil {
		t.Fatalf("Check of the last handle after the others closed: %v", err)
	}
	if n := testutil.Pidfds(t) - before; n != 1 {
		t.Fatalf("%d pidfds with one handle left, want 1", n)
	}
	if err := last.Close(); err != nil {
		t.Fatalf("Close of the last handle: %v", err)
	}
	if n := testutil.Pidfds(t) - before; n != 0 {
		t.Errorf("%d pidfds after every handle closed, want 0", n)
	}
	if tab.Len() != 0 {
		t.Errorf("Len() = %d after every handle closed, want 0", tab.Len())
	}
	// The table opens again after that.
	p := tableOpen(t, &tab, os.Getpid())
	defer p.Close()
	if err := p.Check(); err != nil {
		t.Errorf("Check of a reopened handle: %v", err)
	}
}

// TestProcessTableExited: a process that exited is not shared again: the
// handles on it report it gone, the PID is opened anew (here: it names no
// process, ErrProcessGone), and the old pidfd closes with its handles.
func TestProcessTableExited(t *testing.T) {
	var tab ProcessTable
	child := startChild(t)
	pid := child.Process.Pid
	a := tableOpen(t, &tab, pid)
	b := tableOpen(t, &tab, pid)
	child.Process.Kill()
	child.Wait() // reaped: the PID names no process (os/exec's own pidfd is closed)
	held := testutil.Pidfds(t)
	if err := a.Check(); !errors.Is(err, ErrProcessGone) {
		t.Errorf("Check after the process exited: %v, want ErrProcessGone", err)
	}
	if p, err := tab.Open(pid); !errors.Is(err, ErrProcessGone) {
		if p != nil {
			p.Close()
		}
		t.Errorf("Open of an exited process's PID: %v, want ErrProcessGone", err)
	}
	if tab.Len() != 0 {
		t.Errorf("Len() = %d after the process exited, want 0", tab.Len())
	}
	a.Close()
	if n := testutil.Pidfds(t); n != held {
		t.Errorf("%d pidfds with one handle left on the exited process, want %d", n, held)
	}
	b.Close()
	if n := testutil.Pidfds(t); n != held-1 {
		t.Errorf("%d pidfds after every handle closed, want %d", n, held-1)
	}
}

// TestProcessTableAttach: Attach checks the start time, and a refused
// attach releases its share.
func TestProcessTableAttach(t *testing.T) {
	var tab ProcessTable
	before := testutil.Pidfds(t)
	p := tableOpen(t, &tab, os.Getpid())
	q, err := tab.Attach(os.Getpid(), p.StartTime())
	if err != nil {
		t.Fatalf("Attach with the right start time: %v", err)
	}
	q.Close()
	if _, err := tab.Attach(os.Getpid(), p.StartTime()+1); !errors.Is(err, ErrPIDReused) {
		t.Errorf("Attach with another start time: %v, want ErrPIDReused", err)
	}
	p.Close()
	if n := testutil.Pidfds(t) - before; n != 0 {
		t.Errorf("%d pidfds after every handle closed, want 0", n)
	}
}

// TestProcessTableConcurrent opens and closes handles on two processes
// from many goroutines (go test -race): at the end no pidfd is left.
func TestProcessTableConcurrent(t *testing.T) {
	var tab ProcessTable
	child := startChild(t)
	before := testutil.Pidfds(t) // os/exec holds a pidfd on the child
	pids := []int{os.Getpid(), child.Process.Pid}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				p, err := tab.Open(pids[(g+i)%2])
				if err != nil {
					errs <- err
					return
				}
				if err := p.Check(); err != nil {
					errs <- err
				}
				p.Close()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := testutil.Pidfds(t) - before; n != 0 {
		t.Errorf("%d pidfds after every handle closed, want 0", n)
	}
}
