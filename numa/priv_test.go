package numa

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestQueryOwnBuffer(t *testing.T) {
	topo := hostTopology(t)
	const n = 64
	b := testBuffer(t, n)
	pl, err := QueryRange(0, bufAddr(b), bufAddr(b)+uintptr(len(b)), 16)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Pages != n || pl.NotPresent != 0 || len(pl.Errnos) != 0 {
		t.Fatalf("placement %+v: want %d present pages", pl, n)
	}
	sum := 0
	for node, c := range pl.PerNode {
		if _, err := topo.Node(node); err != nil {
			t.Errorf("page on node %d: %v", node, err)
		}
		sum += c
	}
	if sum != n {
		t.Fatalf("per-node counts sum to %d, want %d", sum, n)
	}
}

func TestQueryNotPresent(t *testing.T) {
	b, err := unix.Mmap(-1, 0, 8*PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(b)
	b[0] = 1 // only the first page is present
	pl, err := QueryRange(0, bufAddr(b), bufAddr(b)+uintptr(len(b)), 0)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Pages != 8 || pl.NotPresent != 7 {
		t.Fatalf("placement %+v: want 8 pages, 7 not present", pl)
	}
}

// TestMoveOwnBuffer moves a buffer to every memory node in turn (node 0
// only, on a one-node host) and checks the content after each move.
func TestMoveOwnBuffer(t *testing.T) {
	topo := hostTopology(t)
	const n = 128
	b := testBuffer(t, n)
	pages, err := PagesOf(bufAddr(b), bufAddr(b)+uintptr(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range memoryNodes(topo) {
		status := make([]PageStatus, n)
		st, err := MovePages(context.Background(), 0, pages, node, status, MoveOptions{Batch: 32})
		if err != nil {
			t.Fatalf("move to node %d: %v", node, err)
		}
		if st.OnTarget != n || st.Failed != 0 || st.Calls < 4 {
			t.Fatalf("move to node %d: %+v, want %d on target in >= 4 calls", node, st, n)
		}
		for i, s := range status {
			if got, _ := s.OnNode(); got != node {
				t.Fatalf("page %d: %v, want node %d", i, s, node)
			}
		}
		checkPattern(t, b)
	}
}

func TestMoveNoSuchNode(t *testing.T) {
	topo := hostTopology(t)
	b := testBuffer(t, 4)
	pages, _ := PagesOf(bufAddr(b), bufAddr(b)+uintptr(len(b)))
	ids := topo.IDs()
	for _, node := range []int{ids[len(ids)-1] + 1, 1 << 20, -1} {
		status := make([]PageStatus, len(pages))
		_, err := MovePages(context.Background(), 0, pages, node, status, MoveOptions{})
		if !errors.Is(err, ErrNoNode) {
			t.Errorf("move to node %d: %v, want ErrNoNode", node, err)
		}
		checkPattern(t, b)
	}
}

func TestExitedProcess(t *testing.T) {
	requireRoot(t)
	child := startChild(t)
	p := openSkip(t, child.Process.Pid)
	if p.Exited() {
		t.Fatal("running child reported exited")
	}
	if err := p.Check(); err != nil {
		t.Fatalf("Check on a running child: %v", err)
	}
	child.Process.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !p.Exited() {
		t.Fatal("killed child not reported exited")
	}
	if err := p.Check(); !errors.Is(err, ErrProcessGone) {
		t.Fatalf("Check on exited child: %v, want ErrProcessGone", err)
	}
	if _, err := p.Placement(0x400000, 0x401000, 0); !errors.Is(err, ErrProcessGone) {
		t.Fatalf("Placement of exited child: %v, want ErrProcessGone", err)
	}
	child.Wait() // reaped: the PID names nothing now, so the kernel says ESRCH
	status := make([]PageStatus, 1)
	_, err := MovePages(context.Background(), child.Process.Pid, []uintptr{0x400000}, 0, status, MoveOptions{})
	if !errors.Is(err, ErrProcessGone) {
		t.Fatalf("move_pages of reaped pid: %v, want ErrProcessGone", err)
	}
	if _, err := OpenProcess(child.Process.Pid); !errors.Is(err, ErrProcessGone) {
		t.Fatalf("OpenProcess of reaped pid: %v, want ErrProcessGone", err)
	}
}

func TestPIDReused(t *testing.T) {
	child := startChild(t)
	p := openSkip(t, child.Process.Pid)
	if p.Comm() != "sleep" {
		t.Errorf("Comm %q, want sleep", p.Comm())
	}
	same, err := AttachProcess(p.PID(), p.StartTime())
	if err != nil {
		t.Fatalf("AttachProcess with the recorded start time: %v", err)
	}
	same.Close()
	// A handle recorded for an earlier process with this PID.
	if _, err := AttachProcess(p.PID(), p.StartTime()-1); !errors.Is(err, ErrPIDReused) {
		t.Fatalf("AttachProcess with another start time: %v, want ErrPIDReused", err)
	}
}

// TestCheckReadsNoProc: once open, a handle's Check polls its pidfd and
// reads nothing under its proc root, which is gone here; it still sees
// the exit.
func TestCheckReadsNoProc(t *testing.T) {
	child := startChild(t)
	root := t.TempDir()
	if err := os.Symlink("/proc/"+strconv.Itoa(child.Process.Pid), filepath.Join(root, strconv.Itoa(child.Process.Pid))); err != nil {
		t.Fatal(err)
	}
	p, err := openProcess(root, child.Process.Pid)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks pidfd_open(2) (Linux < 5.3): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Fatalf("Check of a live process without its proc root: %v", err)
	}
	child.Process.Kill()
	child.Wait()
	if err := p.Check(); !errors.Is(err, ErrProcessGone) {
		t.Fatalf("Check after exit: %v, want ErrProcessGone", err)
	}
}

func TestProcessAdviseCold(t *testing.T) {
	requireRoot(t)
	child := startChild(t)
	p := openSkip(t, child.Process.Pid)
	maps, err := p.Maps()
	if err != nil {
		t.Fatal(err)
	}
	stack := maps.Named("[stack]")
	if len(stack) != 1 {
		t.Fatalf("child has %d [stack] mappings: %v", len(stack), maps)
	}
	r := []Range{{Start: stack[0].Start, Len: stack[0].Size()}}
	n, err := p.Advise(r, AdviseCold)
	if errors.Is(err, ErrNotSupported) && errors.Is(err, unix.ENOSYS) {
		t.Skipf("kernel lacks process_madvise(2) (Linux < 5.10): %v", err)
	}
	if err != nil {
		t.Fatalf("process_madvise MADV_COLD: %v", err)
	}
	if n != stack[0].Size() {
		t.Fatalf("advised %d bytes, want %d", n, stack[0].Size())
	}
	// MADV_HUGEPAGE is not a process_madvise advice.
	if _, err := p.Advise(r, AdviseHugePage); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("process_madvise MADV_HUGEPAGE: %v, want ErrNotSupported", err)
	}
}

func TestMadviseOwn(t *testing.T) {
	b := testBuffer(t, 16)
	for _, a := range []Advice{AdviseCold, AdviseWillNeed, AdviseHugePage, AdviseNoHugePage} {
		if err := Madvise(bufAddr(b), uint64(len(b)), a); err != nil {
			t.Errorf("%v: %v", a, err)
		}
	}
	checkPattern(t, b)
	if err := Madvise(bufAddr(b)+1, 10, AdviseCold); !errors.Is(err, ErrBadRange) {
		t.Errorf("unaligned madvise: %v, want ErrBadRange", err)
	}
}

func TestMoverOwnProcess(t *testing.T) {
	topo := hostTopology(t)
	p := openSkip(t, os.Getpid())
	const n = 96
	b := testBuffer(t, n)
	m, err := NewMover(topo, MoverConfig{Budgets: Budgets{PagesPerCall: 16, BytesPerSec: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	nodes := memoryNodes(topo)
	var plan Plan
	for _, node := range nodes {
		plan = append(plan, Move{Proc: p, Addr: bufAddr(b), Len: uint64(len(b)), Node: node})
	}
	plan = append(plan, Move{Proc: p, Addr: bufAddr(b), Len: uint64(len(b)), Node: 1 << 20})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rep := m.Run(ctx, plan)
	for i, out := range rep.Outcomes[:len(nodes)] {
		if out.Err != nil || out.Pages != n || out.Moved+out.Already != n {
			t.Errorf("move %d to node %d: %+v, want all %d pages there", i, nodes[i], out, n)
		}
	}
	last := rep.Outcomes[len(nodes)]
	if !errors.Is(last.Err, ErrNoNode) || last.Skipped != n {
		t.Errorf("move to a missing node: %+v, want ErrNoNode and all skipped", last)
	}
	if rep.PagesToFast+rep.PagesToSlow != int(rep.BytesMoved)/PageSize {
		t.Errorf("directions %d+%d disagree with %d bytes moved", rep.PagesToFast, rep.PagesToSlow, rep.BytesMoved)
	}
	checkPattern(t, b)
}
