package daemon

import (
	"slices"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// TestReconcilePlacement: the daemon re-reads where its blocks are and
// corrects what drifted. The two-node fixture with the tiers swapped
// (node 0, where every page of this host is, slow) registers a faulted-in
// buffer slow; then the daemon is made to believe blocks 0 (pinned) and 3
// are fast, as if they had been moved behind its back. A pass within the
// page budget corrects both, in bounded slices that go round the regions,
// and the next plan promotes pinned block 0. Before, nothing ever re-read
// placement: a pinned block moved to the slow node stayed there.
func TestReconcilePlacement(t *testing.T) {
	d, _ := fixtureDaemon(t, swappedTiers+`
planner {
  reconcile_epochs = 1
  reconcile_pages  = 64
}
`)
	const blockSz = 64 << 10 // 16 pages
	wl := startWorkload(t)
	v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: blockSz,
		source: "test", priority: policy.PriorityNormal, refcount: 1, pinned: []api.Range{{Offset: 0, Length: blockSz}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.FastBytes != 0 {
		t.Fatalf("region registered with %d fast bytes, want every block slow", v.FastBytes)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.regions[v.ID]
	now := d.now()
	for _, i := range []int{0, 3} { // the drift
		if !d.setTierLocked(r, i, true, now) {
			t.Fatalf("making block %d fast: refused", i)
		}
	}
	// 64 pages a pass: 4 blocks of 16 pages each.
	fixed := d.reconcilePass(now, 64)
	if d.recCursor != (reconcileCursor{region: r.id, block: 4}) {
		t.Fatalf("after a pass of 64 pages the cursor is at %+v, want region %d block 4", d.recCursor, r.id)
	}
	passes := 1
	for passes < r.blocks.len()/4+1 {
		fixed += d.reconcilePass(now, 64)
		passes++
	}
	if fixed != 2 || r.fast.get(0) || r.fast.get(3) {
		t.Fatalf("%d blocks corrected in %d passes (block 0 fast %v, block 3 fast %v), want blocks 0 and 3 back to slow",
			fixed, passes, r.fast.get(0), r.fast.get(3))
	}
	if fast, _ := d.planner.Fast(r.idOf(0)); fast || d.planner.FastBytes() != 0 {
		t.Errorf("planner: block 0 fast %v, %d fast bytes; want slow and 0", fast, d.planner.FastBytes())
	}
	pl := d.planner.Plan(d.now())
	found := false
	for _, m := range pl.Promote {
		found = found || m.Block.ID == r.idOf(0)
	}
	if !found {
		t.Errorf("the plan after the reconcile promotes %d blocks, not pinned block 0", len(pl.Promote))
	}
	// A pass with nothing drifted corrects nothing.
	if n := d.reconcilePass(now, 1<<20); n != 0 {
		t.Errorf("a second pass corrected %d blocks, want 0", n)
	}
}

// TestReconcileBackoff: passes that correct nothing space the next pass
// out (2, 4, then 8 times reconcile_epochs); a pass that corrects a block
// brings the interval back, and so does a region with pinned blocks (they
// must come back within reconcile_epochs). Before, a host where nobody
// else moved pages paid a pass every reconcile_epochs epochs forever.
func TestReconcileBackoff(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pinned []api.Range
		want   []uint64
	}{
		// 28 corrects block 1: back to 2 epochs, then 4.
		{name: "nothing pinned", want: []uint64{0, 4, 12, 28, 30, 34}},
		{name: "a pinned block", pinned: []api.Range{{Offset: 0, Length: 64 << 10}},
			want: []uint64{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := reconcilePasses(t, tc.pinned); !slices.Equal(got, tc.want) {
				t.Fatalf("passes at epochs %v, want %v", got, tc.want)
			}
		})
	}
}

// reconcilePasses runs 40 epochs of reconcile (reconcile_epochs = 2) over
// a region with the pinned ranges, block 1 moved behind the daemon's back
// at epoch 20, and returns the epochs that ran a pass.
func reconcilePasses(t *testing.T, pinned []api.Range) []uint64 {
	d, _ := fixtureDaemon(t, swappedTiers+`
planner {
  reconcile_epochs = 2
}
`)
	wl := startWorkload(t)
	v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: 64 << 10,
		source: "test", priority: policy.PriorityNormal, refcount: 1, pinned: pinned})
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.regions[v.ID]
	var passes []uint64
	for range 40 {
		before := d.recNext
		d.reconcileLocked(d.now())
		if d.recNext != before {
			passes = append(passes, d.planner.Epoch())
		}
		if d.planner.Epoch() == 20 {
			if !d.setTierLocked(r, 1, true, d.now()) {
				t.Fatal("making block 1 fast: refused")
			}
		}
		d.planner.Plan(d.now())
	}
	return passes
}

// TestPlacementPages: a placement read queries every page of a block, or
// a sample spread from its first page to its last; a short last block is
// sampled within its own pages.
func TestPlacementPages(t *testing.T) {
	const ps = 4096
	for _, tc := range []struct {
		name                string
		length, block       uint64
		first, last, perBlk int
		want                []uintptr // page offsets from the region's start, in pages
	}{
		{"every page", 8 * ps, 4 * ps, 0, 2, 0, []uintptr{0, 1, 2, 3, 4, 5, 6, 7}},
		{"two of four", 8 * ps, 4 * ps, 0, 2, 2, []uintptr{0, 3, 4, 7}},
		{"three of sixteen", 16 * ps, 16 * ps, 0, 1, 3, []uintptr{0, 7, 15}},
		{"one", 8 * ps, 4 * ps, 1, 2, 1, []uintptr{4}},
		{"more than the block has", 4 * ps, 4 * ps, 0, 1, 8, []uintptr{0, 1, 2, 3}},
		{"short last block", 6 * ps, 4 * ps, 1, 2, 3, []uintptr{4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const base = 1 << 30
			per := queriedPerBlock(tc.block, tc.perBlk)
			got := placementPages(nil, base, tc.length, tc.block, tc.first, tc.last, per)
			var pages []uintptr
			for _, p := range got {
				pages = append(pages, (p-base)/ps)
			}
			if !slices.Equal(pages, tc.want) {
				t.Errorf("pages %v, want %v", pages, tc.want)
			}
		})
	}
}

// TestReconcileSampled: in a region that pins nothing a pass reads a
// sample of each block (reconcileSample pages), so a budget of 64 pages
// covers 8 blocks of 16 pages instead of 4, and still finds a block that
// moved whole behind the daemon's back.
func TestReconcileSampled(t *testing.T) {
	d, r := slowFixture(t)
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now()
	if !d.setTierLocked(r, 5, true, now) {
		t.Fatal("making block 5 fast: refused")
	}
	if fixed := d.reconcilePass(now, 64); fixed != 1 || r.fast.get(5) {
		t.Fatalf("a pass corrected %d blocks (block 5 fast %v), want block 5 back to slow", fixed, r.fast.get(5))
	}
	if want := (reconcileCursor{region: r.id, block: 64 / reconcileSample}); d.recCursor != want {
		t.Errorf("after a pass of 64 pages the cursor is at %+v, want %+v", d.recCursor, want)
	}
}
