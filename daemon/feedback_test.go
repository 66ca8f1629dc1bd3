package daemon

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// feedbackConfig makes the planner demote at once: 16 blocks of 256 KiB
// tracked fast against a fast tier of 1 MiB, no cooldown.
const feedbackConfig = `
epoch = "1s"
kernel_tiering = "report"
sampler "fault" {}
policy "lru" {}
planner {
  cooldown = "0s"
}
budgets {
  fast_bytes = "1MiB"
}
`

// TestFeedbackDoneErrors: the outcome of a planned move whose block was
// freed since the plan (plan.ErrUntracked) is dropped quietly; the outcome
// of a move the planner did not plan (ErrNotPending) or of a block it does
// not know (ErrUnknownBlock) is a bug, logged with the region and block and
// counted in kvtier_epoch_errors_total.
func TestFeedbackDoneErrors(t *testing.T) {
	// The two-node fixture: the planner has somewhere to demote to. The
	// mover never runs, so the region's addresses need not be mapped.
	d, logs := fixtureDaemon(t, feedbackConfig)
	proc, err := numa.OpenProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.trackLocked(regionSpec{pid: os.Getpid(), addr: 1 << 40, length: 16 * 256 << 10, blockSz: 256 << 10,
		source: "test", priority: policy.PriorityNormal, refcount: 1}, proc)
	if err != nil {
		proc.Close()
		t.Fatal(err)
	}
	_, moves, _ := d.decideLocked(d.now())
	if len(moves) < 2 {
		t.Fatalf("planned %d moves of 16 fast blocks over a 1 MiB fast tier, want at least 2", len(moves))
	}
	unplanned := firstUnplanned(r.blocks.len(), moves)
	if unplanned < 0 {
		t.Fatal("every block was planned to move")
	}
	// Tracked (not only pooled), so that its outcome is refused as one
	// the planner did not plan.
	if _, err := d.blockLocked(r, unplanned, d.now()); err != nil {
		t.Fatal(err)
	}
	// A block freed between plan and done: its region shrank under the
	// mover, as when a process unmaps part of its KV cache.
	if err := d.planner.Untrack(moves[0].r.idOf(moves[0].index)); err != nil {
		t.Fatal(err)
	}
	ghost := newRegion(99, nil, 1<<41, 256<<10, 256<<10) // never tracked
	all := append(moves, plannedMove{r: r, index: unplanned, promote: true}, plannedMove{r: ghost, index: 0})
	d.feedback(all, nil, d.now()) // no report: nothing moved

	errs := errorLines(logs.String())
	want := []string{
		"planner refused a move's outcome: region=1 block=" + strconv.Itoa(unplanned) + " direction=promote",
		"planner refused a move's outcome: region=99 block=0 direction=demote",
	}
	if len(errs) != len(want) {
		t.Fatalf("%d error lines, want %d (not the freed block's):\n%s", len(errs), len(want), logs)
	}
	for i, w := range want {
		if !strings.Contains(errs[i], w) {
			t.Errorf("error line %q lacks %q", errs[i], w)
		}
	}
	if !strings.Contains(errs[0], "no planned move for block") || !strings.Contains(errs[1], "unknown block") {
		t.Errorf("error lines do not name the planner's errors:\n%s", strings.Join(errs, "\n"))
	}
	if v := counterValue(t, d, "kvtier_epoch_errors_total"); v != 2 {
		t.Errorf("kvtier_epoch_errors_total = %v, want 2", v)
	}
}

// firstUnplanned is the first of a region's n blocks that no move in
// moves names, or -1 when every block is planned to move.
func firstUnplanned(n int, moves []plannedMove) int {
	planned := map[int]bool{}
	for _, m := range moves {
		planned[m.index] = true
	}
	for i := range n {
		if !planned[i] {
			return i
		}
	}
	return -1
}

// errorLines returns the lines of the daemon's log that are errors.
func errorLines(logs string) []string {
	var errs []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "[ERROR]") {
			errs = append(errs, l)
		}
	}
	return errs
}

// counterValue reads a counter from the daemon's registry.
func counterValue(t *testing.T, d *Daemon, name string) float64 {
	t.Helper()
	mfs, err := d.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("counter %s not in the registry", name)
	return 0
}
