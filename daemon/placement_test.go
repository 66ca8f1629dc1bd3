package daemon

import (
	"os"
	"testing"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// TestRegisterReadsPlacement: a region's blocks start in the tier their
// pages are in, not all fast. A daemon restarted after demoting blocks
// (or a region whose process was placed by someone else) counted slow
// blocks as fast: hot ones were never promoted, pinned ones never brought
// back, and demoting already-slow blocks "freed" room that was never used,
// so the real fast tier went over its budget. Here the two-node fixture
// with the tiers swapped (node 0, where every page of this host is, slow)
// stands for the slow node: a faulted-in buffer registers slow, and so
// does a buffer never touched: it holds no fast memory, and counted fast
// it was the first victim of every demotion while freeing nothing (in the
// 6.12 guest the planner shed such blocks one an epoch and never made the
// room its promotions needed).
func TestRegisterReadsPlacement(t *testing.T) {
	const src = `
epoch = "10s"
kernel_tiering = "report"
sampler "fault" {}
tiers {
  fast = [1]
  slow = [0]
}
`
	tests := []struct {
		name     string
		mode     string
		wantSlow bool
	}{
		{"faulted in on the slow node", testutil.Touched, true},
		{"not present", testutil.Lazy, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := fixtureDaemon(t, src)
			if d.fastNode != 1 || d.slowNode != 0 {
				t.Fatalf("fast node %d, slow node %d; want 1 and 0", d.fastNode, d.slowNode)
			}
			wl := testutil.StartWorkload(t, testutil.WorkloadCmd(os.Args[0], tt.mode))
			v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: 64 << 10,
				source: "test", priority: policy.PriorityNormal, refcount: 1})
			if err != nil {
				t.Fatal(err)
			}
			wantSlow := uint64(0)
			if tt.wantSlow {
				wantSlow = wl.Size
			}
			if v.SlowBytes != wantSlow || v.FastBytes+v.SlowBytes != wl.Size {
				t.Errorf("region registered with %d fast and %d slow bytes, want %d slow of %d", v.FastBytes, v.SlowBytes, wantSlow, wl.Size)
			}
			d.mu.Lock()
			fast := d.planner.FastBytes()
			d.mu.Unlock()
			if fast != int64(wl.Size-wantSlow) {
				t.Errorf("planner counts %d fast bytes, want %d", fast, wl.Size-wantSlow)
			}
		})
	}
}
