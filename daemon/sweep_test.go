package daemon

import (
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// TestSweep: a slow block sampled once is tracked; once idle (unseen for
// 8 epochs) a sweep untracks and dematerialises it, keeping a
// think_complete class it had in the region's marks; a block sampled
// lately stays; sampled again, the swept block is tracked afresh with the
// same metadata.
func TestSweep(t *testing.T) {
	d, r := slowFixture(t)
	done := []api.Range{{Offset: 4 * r.blockSize, Length: r.blockSize}}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.accessLocked(r.id, 3, hintObservation, d.now(), nil)
	d.accessLocked(r.id, 4, hintObservation, d.now(), nil)
	d.mu.Unlock()
	_, err := d.updateRegion(r.id, api.UpdateRequest{ThinkComplete: done})
	d.mu.Lock()
	if err != nil {
		t.Fatal(err)
	}
	want4 := r.blocks.get(4).Meta
	if want4.Class != policy.ClassThinkComplete {
		t.Fatalf("block 4 marked think_complete is %v", want4.Class)
	}
	for e := range 9 {
		if e == 7 {
			d.accessLocked(r.id, 5, hintObservation, d.now(), nil)
		}
		d.planner.Plan(d.now())
	}
	if n := d.sweepLocked(d.now()); n != 2 {
		t.Fatalf("the sweep dematerialised %d blocks, want 2 (blocks 3 and 4)", n)
	}
	if r.blocks.get(3) != nil || r.blocks.get(4) != nil || r.blocks.get(5) == nil {
		t.Fatalf("after the sweep: 3 %v, 4 %v, 5 %v materialised; want 5 alone",
			r.blocks.get(3) != nil, r.blocks.get(4) != nil, r.blocks.get(5) != nil)
	}
	if _, tracked := d.planner.Fast(r.idOf(3)); tracked || d.planner.Stats().Tracked != 1 {
		t.Fatalf("block 3 still tracked after the sweep (%d tracked)", d.planner.Stats().Tracked)
	}
	d.sweepLocked(d.now()) // recycles the swept slots
	d.accessLocked(r.id, 4, hintObservation, d.now(), nil)
	if b := r.blocks.get(4); b == nil || b.Meta != want4 || b.ID != r.idOf(4) {
		t.Fatalf("block 4 sampled again: %+v, want ID %#x and meta %+v", b, r.idOf(4), want4)
	}
	if _, tracked := d.planner.Fast(r.idOf(4)); !tracked || r.blocks.materialised() != 2 {
		t.Errorf("block 4 sampled again: tracked %v, %d materialised; want tracked and 2", tracked, r.blocks.materialised())
	}
}
