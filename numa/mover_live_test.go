package numa

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// presentPages returns up to n base pages of pid's mappings that are
// present on a node, for moves that must have something to do. A child
// that has just exec'd may still be faulting its pages in: it asks again
// for up to 2 s before failing.
func presentPages(t *testing.T, pid, n int) []uintptr {
	t.Helper()
	var out []uintptr
	for range 100 {
		if out = presentNow(t, pid, n); len(out) >= n {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("pid %d has %d present pages, want %d", pid, len(out), n)
	return nil
}

// presentNow is up to n of pid's present base pages as they are now.
func presentNow(t *testing.T, pid, n int) []uintptr {
	t.Helper()
	maps, err := ReadMaps(DefaultProcRoot, pid)
	if err != nil {
		t.Fatal(err)
	}
	var out []uintptr
	for _, m := range maps {
		pages, err := PagesOf(m.Start, m.End)
		if err != nil {
			continue
		}
		status := make([]PageStatus, len(pages))
		if QueryPages(pid, pages, status, 0) != nil {
			continue
		}
		for i, s := range status {
			if _, ok := s.OnNode(); ok && len(out) < n {
				out = append(out, pages[i])
			}
		}
	}
	return out
}

// waitExec waits until pid runs comm: until then its maps are those of
// this process, forked, and its pages change with the exec.
func waitExec(t *testing.T, pid int, comm string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(time.Millisecond) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(b)) == comm {
			return
		}
	}
	t.Fatalf("pid %d did not exec %s within 10s", pid, comm)
}

// TestMoverRefusesClosedProcess: a Move whose Process handle was closed
// names a PID the caller no longer vouches for (poll(2) ignores a closed
// pidfd of -1, so the handle looked alive): nothing of it is queried or
// moved.
func TestMoverRefusesClosedProcess(t *testing.T) {
	requireRoot(t)
	topo := hostTopology(t)
	p, err := OpenProcess(os.Getpid())
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks pidfd_open(2): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	b := testBuffer(t, 4)
	m, err := NewMover(topo, MoverConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rep := m.Run(context.Background(), Plan{{Proc: p, Addr: bufAddr(b), Len: uint64(len(b)), Node: memoryNodes(topo)[0]}})
	out := rep.Outcomes[0]
	if !errors.Is(out.Err, ErrProcessGone) || out.Skipped != 4 || rep.Calls != 0 {
		t.Errorf("move through a closed handle: %+v, %d calls; want all 4 pages skipped with ErrProcessGone and no call", out, rep.Calls)
	}
}

// TestMoverRechecksLivenessAfterWait: a move that waited for migration
// bandwidth checks that its process is still alive before move_pages(2)
// names its PID. The process exits during the wait; without the check
// the call went to the exited PID (which, once reaped, another process may
// hold).
func TestMoverRechecksLivenessAfterWait(t *testing.T) {
	requireRoot(t)
	// Node 1 of the fixture is slow; every page here is on node 0, so
	// each needs a move and the move waits for the bucket.
	topo := fixtureTopology(t, "cxl-2node")
	child := startChild(t)
	waitExec(t, child.Process.Pid, "sleep")
	proc := openSkip(t, child.Process.Pid)
	pages := presentPages(t, child.Process.Pid, 4)
	ps := int64(PageSize)
	// 4 pages a second with a burst of one: the move of 4 pages waits
	// about 0.75 s for its bandwidth.
	m, err := NewMover(topo, MoverConfig{Budgets: Budgets{BytesPerSec: 4 * ps, Burst: ps}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		child.Process.Kill() // left unreaped: a zombie until cleanup
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep := m.Run(ctx, Plan{{Proc: proc, Pages: pages, Node: 1}})
	out := rep.Outcomes[0]
	if !errors.Is(out.Err, ErrProcessGone) || out.Skipped != 4 || out.Moved != 0 {
		t.Errorf("outcome %+v (err %v), want 4 pages skipped with ErrProcessGone", out, out.Err)
	}
	if rep.Calls != 1 {
		t.Errorf("%d move_pages calls, want 1 (the query): a move went to the PID of an exited process", rep.Calls)
	}
}
