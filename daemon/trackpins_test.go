package daemon

import (
	"os"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// TestRegisterPinnedInSteps: a registration with pinned ranges, tracked
// in steps that end at the first look at the clock (every trackCheck
// units: pinned blocks and runs pooled): after every step the pinned blocks among [0,
// tracked) are materialised and tracked in their tier, no other block
// is, and the fast unpinned ones are counted in the region's pool,
// blocks and bytes (a short last block included); the tier and the
// tenant count every fast block reached.
func TestRegisterPinnedInSteps(t *testing.T) {
	const bs = 4096
	tests := []struct {
		name      string
		blocks    int
		short     uint64 // bytes the last block lacks
		pinned    []api.Range
		fast      func(i int) bool
		wantSteps int // at least
	}{
		{"no pins", 5000, 0, nil, func(int) bool { return true }, 1},
		{"one range", 5000, 0, []api.Range{{Offset: 100 * bs, Length: 200 * bs}}, func(int) bool { return true }, 6},
		{"first and last, short", 3000, 1000, []api.Range{{Offset: 0, Length: 40 * bs},
			{Offset: 2990 * bs, Length: 10*bs - 1000}}, func(i int) bool { return i%3 != 0 }, 2},
		{"short last block pooled", 3000, 1000, []api.Range{{Offset: 1000 * bs, Length: 64 * bs}},
			func(int) bool { return true }, 2},
		{"overlapping, unsorted", 4000, 0, []api.Range{{Offset: 3000 * bs, Length: 100 * bs},
			{Offset: 500 * bs, Length: 300 * bs}, {Offset: 600 * bs, Length: 400 * bs}}, func(i int) bool { return i%2 == 0 }, 10},
		{"all pinned", 300, 0, []api.Range{{Offset: 0, Length: 300 * bs}}, func(i int) bool { return i < 150 }, 9},
		{"all slow", 2000, 0, []api.Range{{Offset: 64 * bs, Length: 64 * bs}}, func(int) bool { return false }, 2},
		// One pinned block every 64 (a sink block a sequence): 200 pins
		// and 200 runs, 12 looks at the clock. Counting r.tracked, the
		// step never looked (a pin leaves it at 1 mod 64).
		{"a pin every 64 blocks", 64 * 200, 0, everyNth(64*200, 64, bs), func(int) bool { return true }, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := fixtureDaemon(t, feedbackConfig)
			fast := make([]bool, tt.blocks)
			for i := range fast {
				fast[i] = tt.fast(i)
			}
			r := stagedPinnedRegion(t, d, uint64(tt.blocks)*bs-tt.short, tt.pinned, fast)
			d.mu.Lock()
			defer d.mu.Unlock()
			steps := 0
			for r.tracked < r.blocks.len() {
				if err := d.trackUntilLocked(r, time.Time{}); err != nil {
					t.Fatal(err)
				}
				steps++
				checkPinnedStep(t, d, r)
			}
			if steps < tt.wantSteps {
				t.Errorf("%d steps, want at least %d (one per %d pinned blocks and runs)", steps, tt.wantSteps, trackCheck)
			}
		})
	}
}

// everyNth returns one pinned range of a bs-byte block every n of blocks.
func everyNth(blocks, n int, bs uint64) []api.Range {
	var rs []api.Range
	for i := 0; i < blocks; i += n {
		rs = append(rs, api.Range{Offset: uint64(i) * bs, Length: bs})
	}
	return rs
}

// stagedPinnedRegion builds and inserts (adding, nothing tracked) a
// region of length bytes of 4 KiB blocks with pinned ranges and the tiers
// fast, as addRegionAs does before its steps.
func stagedPinnedRegion(t *testing.T, d *Daemon, length uint64, pinned []api.Range, fast []bool) *region {
	t.Helper()
	proc, err := numa.OpenProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Close() })
	s := regionSpec{pid: os.Getpid(), addr: 1 << 40, length: length, blockSz: 4096, tenant: "t",
		source: "api", priority: policy.PriorityNormal, refcount: 1, pinned: pinned, fast: fast}
	id, err := d.reserveID(&s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := buildRegion(id, &s, proc)
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.insertLocked(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkPinnedStep checks every block of r, the only region, after a step.
func checkPinnedStep(t *testing.T, d *Daemon, r *region) {
	t.Helper()
	var pooled, fastBlocks int
	var pooledBytes, fastBytes int64
	for i := range r.blocks.len() {
		reached, pinned, fast := i < r.tracked, r.pinnedAt(i), r.fast.get(i)
		isFast, tracked := d.planner.Fast(r.idOf(i))
		if want := reached && pinned; tracked != want || (r.blocks.get(i) != nil) != want {
			t.Fatalf("block %d (pinned %v, %d tracked): planner tracks it %v, materialised %v, want %v",
				i, pinned, r.tracked, tracked, r.blocks.get(i) != nil, want)
		}
		if tracked && isFast != fast {
			t.Fatalf("block %d tracked fast %v, its tier fast %v", i, isFast, fast)
		}
		if reached && fast {
			fastBlocks++
			fastBytes += int64(r.blockLen(i))
			if !pinned {
				pooled++
				pooledBytes += int64(r.blockLen(i))
			}
		}
	}
	if got := 0; r.pool != nil {
		got = r.pool.Blocks()
		if got != pooled {
			t.Errorf("%d tracked: the pool holds %d blocks, want %d", r.tracked, got, pooled)
		}
	} else if pooled != 0 {
		t.Errorf("%d tracked: no pool, want %d blocks pooled", r.tracked, pooled)
	}
	st := d.planner.Stats()
	if st.FastBytes != fastBytes {
		t.Errorf("%d tracked: the planner counts %d fast bytes, want %d (%d pooled)", r.tracked, st.FastBytes,
			fastBytes, pooledBytes)
	}
	for _, ts := range st.Tenants {
		if ts.Tenant == r.tenantIdx && (ts.FastBlocks != fastBlocks || ts.FastBytes != fastBytes) {
			t.Errorf("%d tracked: tenant counts %d fast blocks, %d bytes; want %d, %d", r.tracked,
				ts.FastBlocks, ts.FastBytes, fastBlocks, fastBytes)
		}
	}
}
