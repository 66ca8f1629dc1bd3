package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// TestSweep: a slow block sampled once is tracked; once idle (unseen for
// 9 epochs) a sweep untracks and dematerialises it, keeping a
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
	for e := range 10 { // the default reuse window (8 epochs) and one more
		if e == 8 {
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

// TestSweptUpdateRecorded: a recording that saw a block keeps hearing of
// its metadata after the sweep dematerialised it (the replay knows the
// block and would keep its old class otherwise).
func TestSweptUpdateRecorded(t *testing.T) {
	d, r := slowFixture(t)
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if _, err := d.startTrace(path, func() (*os.File, error) { return os.Create(path) }); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	d.accessLocked(r.id, 3, hintObservation, d.now(), nil)
	for range 10 {
		d.planner.Plan(d.now())
	}
	if n := d.sweepLocked(d.now()); n != 1 || r.blocks.get(3) != nil {
		t.Fatalf("the sweep dematerialised %d blocks (block 3: %v), want block 3", n, r.blocks.get(3) != nil)
	}
	d.mu.Unlock()
	done := []api.Range{{Offset: 3 * r.blockSize, Length: 2 * r.blockSize}}
	if _, err := d.updateRegion(r.id, api.UpdateRequest{ThinkComplete: done}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.StopTrace(); err != nil {
		t.Fatal(err)
	}
	got := readRecorded(t, path)
	if m, ok := got.updates[r.idOf(3)]; !ok || m.Class != policy.ClassThinkComplete || len(got.updates) != 1 {
		t.Errorf("updates recorded: %v; want block 3 (seen, swept) think_complete and not block 4 (never seen)", got.updates)
	}
}

// TestDemotedStamps: a demotion is a regret within the horizon and not
// after it, once; ages wrap modulo 2^32 ms; the sweep forgets expired
// stamps.
func TestDemotedStamps(t *testing.T) {
	const ms = policy.Time(time.Millisecond)
	h := 32 * 1000 * ms
	wrap := policy.Time(1<<32) * ms
	for _, tc := range []struct {
		name     string
		at, read policy.Time
		want     bool
	}{
		{"at once", 5 * ms, 5 * ms, true},
		{"at the horizon", 0, h, true},
		{"past the horizon", 0, h + ms, false},
		{"across the wrap", wrap - 10*ms, wrap + 10*ms, true},
		{"a wrap later", 0, wrap + h + ms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRegion(1, nil, 1<<40, 4*4096, 4096)
			r.markDemoted(2, tc.at)
			if got := r.takeDemoted(2, tc.read, h); got != tc.want {
				t.Errorf("demoted at %v, read at %v: regret %v, want %v", tc.at, tc.read, got, tc.want)
			}
			if r.takeDemoted(2, tc.read, h) {
				t.Error("a second read is a regret too")
			}
		})
	}
	r := newRegion(1, nil, 1<<40, 4*4096, 4096)
	r.markDemoted(1, 0)
	r.markDemoted(3, h)
	for i := range 4 {
		r.expireDemotedRange(i, i+1, h+2*ms, h)
	}
	if r.demotedAt[1] != 0 || r.demotedAt[3] == 0 {
		t.Errorf("after expiry: stamps %v, want block 1's forgotten and block 3's kept", r.demotedAt)
	}
}
