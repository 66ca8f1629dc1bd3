package daemon

import (
	"os"
	"slices"
	"testing"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// lazyEvent is an event that needs block i of a region materialised.
type lazyEvent struct {
	name      string
	event     func(t *testing.T, d *Daemon, r *region, i int)
	wantFast  bool
	wantClass policy.Class
}

// lazyEvents are TestLazyBlocks' cases.
var lazyEvents = []lazyEvent{
	{name: "sampled", event: func(t *testing.T, d *Daemon, r *region, i int) {
		c := bpf.Count{Region: uint32(r.id), Block: uint32(i), Accesses: 2, Events: 2}
		d.feedCountsLocked(openedState("damon"), []bpf.Count{c}, d.now(), tenantHits{})
	}},
	{name: "hinted", event: func(t *testing.T, d *Daemon, r *region, i int) {
		d.accessLocked(r.id, i, hintObservation, d.now(), nil)
	}},
	{name: "found fast", event: func(t *testing.T, d *Daemon, r *region, i int) {
		if !d.setTierLocked(r, i, true, d.now()) {
			t.Fatalf("block %d found fast: refused", i)
		}
	}, wantFast: true},
	{name: "marked done, then hinted", event: func(t *testing.T, d *Daemon, r *region, i int) {
		off := uint64(i) * r.blockSize
		d.mu.Unlock()
		_, err := d.updateRegion(r.id, api.UpdateRequest{ThinkComplete: []api.Range{{Offset: off, Length: r.blockSize}}})
		d.mu.Lock()
		if err != nil {
			t.Fatal(err)
		}
		if r.blocks.get(i) != nil {
			t.Fatalf("a think_complete mark materialised block %d", i)
		}
		d.accessLocked(r.id, i, hintObservation, d.now(), nil)
	}, wantClass: policy.ClassThinkComplete},
}

// TestLazyBlocks: a region registered slow holds no policy.Block and the
// planner tracks none of its blocks until an event needs one; each event
// that does materialises exactly the block it names, in the right tier
// and with the region's metadata (marks made while it was not
// materialised included); dropping the region untracks them all.
func TestLazyBlocks(t *testing.T) {
	for _, tc := range lazyEvents {
		t.Run(tc.name, func(t *testing.T) {
			d, r := slowFixture(t)
			d.mu.Lock()
			defer d.mu.Unlock()
			if n := r.blocks.materialised(); n != 0 || d.planner.Stats().Tracked != 0 {
				t.Fatalf("a slow region of %d blocks: %d materialised, %d tracked; want none",
					r.blocks.len(), n, d.planner.Stats().Tracked)
			}
			const i = 3
			tc.event(t, d, r, i)
			b := r.blocks.get(i)
			if b == nil || r.blocks.materialised() != 1 || d.planner.Stats().Tracked != 1 {
				t.Fatalf("after the event: block %d materialised %v, %d materialised, %d tracked; want it alone",
					i, b != nil, r.blocks.materialised(), d.planner.Stats().Tracked)
			}
			if want := r.meta(i, tc.wantClass); b.ID != r.idOf(i) || b.Meta != want {
				t.Errorf("block %d: ID %#x meta %+v, want %#x %+v", i, b.ID, b.Meta, r.idOf(i), want)
			}
			if fast, tracked := d.planner.Fast(b.ID); !tracked || fast != tc.wantFast || r.fast.get(i) != tc.wantFast {
				t.Errorf("block %d: planner fast %v tracked %v, region fast %v; want fast %v",
					i, fast, tracked, r.fast.get(i), tc.wantFast)
			}
			d.dropRegionLocked(r, "test")
			if n := d.planner.Stats().Tracked; n != 0 {
				t.Errorf("%d blocks tracked after the region was dropped", n)
			}
		})
	}
}

// TestLazyPinned: pinning blocks not materialised tracks them at once (a
// slow pinned block is promoted by the next plan), and only them.
func TestLazyPinned(t *testing.T) {
	d, r := slowFixture(t)
	pin := []api.Range{{Offset: 2 * r.blockSize, Length: 2 * r.blockSize}}
	if _, err := d.updateRegion(r.id, api.UpdateRequest{Pinned: &pin}); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.blocks.materialised() != 2 || r.blocks.get(2) == nil || r.blocks.get(3) == nil {
		t.Fatalf("%d blocks materialised (2: %v, 3: %v), want blocks 2 and 3",
			r.blocks.materialised(), r.blocks.get(2) != nil, r.blocks.get(3) != nil)
	}
	pl := d.planner.Plan(d.now())
	got := map[policy.BlockID]bool{}
	for _, m := range pl.Promote {
		got[m.Block.ID] = true
	}
	if len(got) != 2 || !got[r.idOf(2)] || !got[r.idOf(3)] {
		t.Errorf("the plan after pinning promotes %d blocks, want blocks 2 and 3", len(pl.Promote))
	}
}

// TestLazyPool: a region registered fast materialises no block: its
// blocks are counted in a pool, in the tier's and tenant's bytes; an
// update that changes their bucket pools them anew, a think_complete mark
// materialises the marked fast block; the plan that sheds the overage
// demotes pooled blocks in index order (materialising only those); a
// pooled block found slow leaves the pool; dropping the region closes it.
func TestLazyPool(t *testing.T) {
	d, _ := fixtureDaemon(t, feedbackConfig) // fast_bytes 1 MiB
	r := fastRegion(t, d, 16, 256<<10)       // 4 MiB
	const total = 16 * 256 << 10
	check := func(step string, materialised int, fastBytes int64) {
		t.Helper()
		if n := r.blocks.materialised(); n != materialised || d.planner.FastBytes() != fastBytes {
			t.Fatalf("%s: %d materialised, %d fast bytes in the planner; want %d and %d",
				step, n, d.planner.FastBytes(), materialised, fastBytes)
		}
	}
	check("registered", 0, total)
	low := "low"
	if _, err := d.updateRegion(r.id, api.UpdateRequest{Priority: &low,
		ThinkComplete: []api.Range{{Offset: 15 * r.blockSize, Length: r.blockSize}}}); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	check("updated", 1, total)
	if b := r.blocks.get(15); b == nil || b.Meta.Class != policy.ClassThinkComplete || b.Meta.Priority != policy.PriorityLow {
		t.Fatalf("block 15 after the update: %+v, want think_complete and low", b)
	}
	if !d.setTierLocked(r, 14, false, d.now()) || r.fast.get(14) || r.blocks.get(14) != nil {
		t.Fatal("pooled block 14 found slow: not taken out of the pool, or materialised")
	}
	check("found slow", 1, total-int64(r.blockSize))
	if !d.setTierLocked(r, 14, true, d.now()) || !r.fast.get(14) || r.blocks.get(14) == nil {
		t.Fatal("block 14 found fast again: refused, or not materialised")
	}
	check("found fast again", 2, total) // tracked, not pooled
	pl, _, _ := d.decideLocked(d.now())
	var got []int
	for _, m := range pl.Demote {
		_, i := splitBlockID(m.Block.ID)
		got = append(got, i)
	}
	// 1 MiB is 4 blocks: 16 fast blocks are 12 over. Block 15,
	// think_complete, is in a lower bucket than the pool's and goes first;
	// block 14, tracked, stays behind the pool.
	want := []int{15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if !slices.Equal(got, want) {
		t.Fatalf("demoted %v, want %v", got, want)
	}
	check("planned", 13, total)
	d.dropRegionLocked(r, "test")
	if d.planner.FastBytes() != 0 || d.planner.Stats().Tracked != 0 {
		t.Errorf("after the drop: %d fast bytes, %d tracked; want none", d.planner.FastBytes(), d.planner.Stats().Tracked)
	}
}

// fastRegion tracks a region of n blocks of size bytes, every block fast,
// in d (at an address of this process that is never mapped).
func fastRegion(t *testing.T, d *Daemon, n int, size uint64) *region {
	t.Helper()
	proc, err := numa.OpenProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.trackLocked(regionSpec{pid: os.Getpid(), addr: 1 << 40, length: uint64(n) * size, blockSz: size,
		source: "test", priority: policy.PriorityNormal, refcount: 1}, proc)
	if err != nil {
		proc.Close()
		t.Fatal(err)
	}
	return r
}
