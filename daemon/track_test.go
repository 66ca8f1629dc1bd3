package daemon

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
)

// stagedRegion builds and inserts (adding, nothing tracked) a region of
// n blocks of 4 KiB at a fake address of this process, as addRegionAs
// does before its steps.
func stagedRegion(t *testing.T, d *Daemon, n int) *region {
	t.Helper()
	return stagedPinnedRegion(t, d, uint64(n)*4096, nil, nil)
}

// TestRegisterInSteps: a region being registered is in d.regions (the
// limits and overlaps see it) but hidden from the API and the state file;
// after every step the planner tracks exactly blocks [0, tracked); once
// published it is shown.
func TestRegisterInSteps(t *testing.T) {
	d, _ := fixtureDaemon(t, feedbackConfig)
	const n = 1 << 17
	r := stagedRegion(t, d, n)
	d.mu.Lock()
	if _, err := d.regionFor(rootCaller, r.id); err == nil {
		t.Error("regionFor finds a region still being registered")
	}
	if len(d.savedLocked().Regions) != 0 {
		t.Error("the state file would hold a region still being registered")
	}
	s := regionSpec{pid: os.Getpid(), addr: 1<<40 + 4096, length: 4096, blockSz: 4096}
	var re *reqError
	if err := d.admitLocked(&s); !errors.As(err, &re) || re.code != http.StatusConflict {
		t.Errorf("an overlapping registration: %v, want a 409", err)
	}
	if err := d.trackStepLocked(r); err != nil {
		t.Fatal(err)
	}
	d.mu.Unlock()
	if len(d.regionViews(rootCaller, 0)) != 0 {
		t.Error("regionViews lists a region still being registered")
	}
	checkTracked(t, d, r)
	if err := d.trackSteps(r); err != nil { // returns with d.mu held
		t.Fatal(err)
	}
	checkTracked(t, d, r)
	v, err := d.publishLocked(r)
	d.mu.Unlock()
	if err != nil || v.Blocks != n {
		t.Fatalf("publishLocked: %+v, %v", v, err)
	}
	if got := d.regionViews(rootCaller, 0); len(got) != 1 || got[0].ID != r.id {
		t.Errorf("regionViews after the registration: %+v", got)
	}
}

// checkTracked checks that the planner tracks the blocks among [0,
// r.tracked) of r that need a policy.Block at once (pinned), and no
// other (the first and last of each part), and counts the fast ones
// among them (tracked or pooled) in the tier: r is the only region.
func checkTracked(t *testing.T, d *Daemon, r *region) {
	t.Helper()
	if r.tracked == 0 {
		t.Fatal("a step tracked no block")
	}
	probe := []int{0, r.tracked - 1, r.tracked, r.blocks.len() - 1}
	for _, i := range probe {
		if i >= r.blocks.len() {
			continue
		}
		want := i < r.tracked && r.pinnedAt(i)
		if _, tracked := d.planner.Fast(r.idOf(i)); tracked != want {
			t.Errorf("block %d: tracked %v, %d of %d blocks tracked", i, tracked, r.tracked, r.blocks.len())
		}
	}
	var fast int64
	for i := range r.tracked {
		if r.fast.get(i) {
			fast += int64(r.blockLen(i))
		}
	}
	if got := d.planner.FastBytes(); got != fast {
		t.Errorf("%d of %d blocks tracked: the planner counts %d fast bytes, the region %d", r.tracked, r.blocks.len(), got, fast)
	}
}

// TestRegisterDroppedInSteps: a region dropped while it is registered
// (the epoch loop reaps it) ends the registration with a 404, untracked,
// without a "region removed" line or event for a region never shown.
func TestRegisterDroppedInSteps(t *testing.T) {
	d, logs := fixtureDaemon(t, feedbackConfig)
	r := stagedRegion(t, d, 1<<15)
	d.mu.Lock()
	d.dropRegionLocked(r, "process exited")
	d.mu.Unlock()
	err := d.trackSteps(r)
	var re *reqError
	if !errors.As(err, &re) || re.code != http.StatusNotFound {
		t.Fatalf("trackSteps of a dropped region: %v, want a 404", err)
	}
	if _, tracked := d.planner.Fast(r.idOf(0)); tracked {
		t.Error("the dropped region's blocks are still tracked")
	}
	if strings.Contains(logs.String(), "region removed") {
		t.Errorf("a region never shown is logged as removed:\n%s", logs)
	}
}
