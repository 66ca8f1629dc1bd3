package daemon

import (
	"testing"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// handleConfig registers regions without samplers, so that no sampler's
// per-process watch limit counts.
const handleConfig = `
epoch = "1h"
kernel_tiering = "report"
policy "lru" {}
`

// registerSlices registers n regions of 4 KiB blocks, one after another in
// the workload's buffer, and returns their IDs.
func registerSlices(t *testing.T, d *Daemon, pid int, addr, size uint64, n int) []uint64 {
	t.Helper()
	per := size / uint64(n) / 4096 * 4096
	if per == 0 {
		t.Fatalf("a buffer of %d bytes cannot hold %d regions of 4 KiB", size, n)
	}
	var ids []uint64
	for i := range n {
		reg, err := d.addRegion(regionSpec{pid: pid, addr: addr + uint64(i)*per, length: per, blockSz: 4096,
			source: "test", priority: policy.PriorityNormal, refcount: 1})
		if err != nil {
			t.Fatalf("region %d: %v", i, err)
		}
		ids = append(ids, reg.ID)
	}
	return ids
}

// TestOneHandlePerProcess: N regions of one process hold one pidfd, not
// N; it stays open while any region of the process does and closes with
// the last.
func TestOneHandlePerProcess(t *testing.T) {
	d, _ := fixtureDaemon(t, handleConfig)
	wl := startWorkload(t)
	before := testutil.Pidfds(t) // os/exec holds one on the workload
	const n = 16
	ids := registerSlices(t, d, wl.PID(), wl.Addr, wl.Size, n)
	if got := testutil.Pidfds(t) - before; got != 1 {
		t.Fatalf("%d regions of one process opened %d pidfds, want 1", n, got)
	}
	for _, id := range ids[:n-1] {
		if err := d.removeRegion(id); err != nil {
			t.Fatal(err)
		}
	}
	if got := testutil.Pidfds(t) - before; got != 1 {
		t.Fatalf("%d pidfds with one region left, want 1", got)
	}
	d.mu.Lock()
	for _, r := range d.regions {
		if err := r.proc.Check(); err != nil {
			t.Errorf("region %d: its handle after the others closed: %v", r.id, err)
		}
	}
	d.mu.Unlock()
	if err := d.removeRegion(ids[n-1]); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Pidfds(t) - before; got != 0 {
		t.Errorf("%d pidfds after the last region of the process went, want 0", got)
	}
}

// TestSharedHandleDuringMove: a region dropped while the mover works on it
// keeps the process's pidfd open until the mover is done, even when the
// process's other regions (not moving) are dropped meanwhile and its
// share was the last.
func TestSharedHandleDuringMove(t *testing.T) {
	d, _ := fixtureDaemon(t, handleConfig)
	wl := startWorkload(t)
	before := testutil.Pidfds(t)
	ids := registerSlices(t, d, wl.PID(), wl.Addr, wl.Size, 3)
	d.mu.Lock()
	moving := d.regions[ids[1]]
	moving.inMove = true // as runEpoch marks the regions of its moves
	for _, id := range ids {
		d.dropRegionLocked(d.regions[id], "unregistered")
	}
	if got := testutil.Pidfds(t) - before; got != 1 {
		t.Errorf("%d pidfds while the mover still runs on a dropped region, want 1", got)
	}
	if err := moving.proc.Check(); err != nil {
		t.Errorf("the moving region's handle while the mover runs: %v", err)
	}
	d.moverDone([]plannedMove{{r: moving}})
	d.mu.Unlock()
	if got := testutil.Pidfds(t) - before; got != 0 {
		t.Errorf("%d pidfds after the mover was done, want 0", got)
	}
}

// TestHandlesOfTwoProcesses: regions of two processes hold two pidfds.
func TestHandlesOfTwoProcesses(t *testing.T) {
	d, _ := fixtureDaemon(t, handleConfig)
	a, b := startWorkload(t), startWorkload(t)
	before := testutil.Pidfds(t)
	registerSlices(t, d, a.PID(), a.Addr, a.Size, 4)
	registerSlices(t, d, b.PID(), b.Addr, b.Size, 4)
	if got := testutil.Pidfds(t) - before; got != 2 {
		t.Errorf("8 regions of 2 processes opened %d pidfds, want 2", got)
	}
}
