package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	dto "github.com/prometheus/client_model/go"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// backoffDaemon is a daemon on a copy of the two-node fixture (node 1
// slow), so a test can change node 1's free memory; it returns the
// daemon, its log and the path of node 1's meminfo.
func backoffDaemon(t *testing.T) (*Daemon, *testutil.SyncBuffer, string) {
	t.Helper()
	skipUnlessRoot(t)
	sys := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(sys, os.DirFS(filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys"))); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig("backoff.hcl", []byte("epoch = \"10s\"\nkernel_tiering = \"report\"\nsampler \"fault\" {}\nbudgets {\n  fast_bytes = \"128KiB\"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{SysRoot: sys, Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.closeAll)
	return d, logs, filepath.Join(sys, "devices", "system", "node", "node1", "meminfo")
}

// TestNodeFullBackoff: a slow node found full (ENOMEM) holds demotions
// for 2, then 4, 8 ... epochs (the plans in between demote nothing),
// logged and published once per backoff and shown in status and metrics;
// a plan after the backoff tries again; a move that reaches the node, or
// a rise of its free memory, ends the backoff. Before, the daemon planned
// moves to the full node in every epoch.
func TestNodeFullBackoff(t *testing.T) {
	d, logs, meminfo := backoffDaemon(t)
	events, cancel := d.events.subscribe(nil)
	defer cancel()
	wl := startWorkload(t)
	v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: 64 << 10,
		source: "test", priority: policy.PriorityNormal, refcount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v.FastBytes <= 128<<10 {
		t.Fatalf("the workload's region has %d fast bytes, want more than the 128 KiB budget", v.FastBytes)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	plan := func() int { return planFailedDemotions(d) }
	full := &numa.Report{FullNodes: []int{1}}
	if n := plan(); n == 0 {
		t.Fatal("the first plan demotes nothing; the region is over the fast-tier budget")
	}
	for _, want := range []uint64{2, 4, 8} {
		d.backoffLocked(nil, full)
		if b := d.backoff[1]; b == nil || b.epochs != want {
			t.Fatalf("after the node was found full: backoff %+v, want %d epochs", b, want)
		}
		for i := range want {
			if n := plan(); n != 0 {
				t.Fatalf("plan %d of a %d-epoch backoff demotes %d blocks to the full node", i+1, want, n)
			}
		}
		if n := plan(); n == 0 {
			t.Fatalf("the plan after a %d-epoch backoff does not try the node again", want)
		}
	}
	checkBackoffShown(t, d, logs, events)

	// A move that reached the node ends the backoff.
	r := d.regions[v.ID]
	d.backoffLocked([]plannedMove{{r: r, index: 0}}, &numa.Report{Outcomes: []numa.Outcome{{Pages: 16, Moved: 16}}})
	if d.backoff[1] != nil || !strings.Contains(logs.String(), "because=\"a move to it succeeded\"") {
		t.Fatalf("after a successful demotion: backoff %+v; log:\n%s", d.backoff[1], logs.String())
	}

	// So does a rise of its free memory.
	d.backoffLocked(nil, full)
	if n := plan(); n != 0 {
		t.Fatalf("a fresh backoff still demotes %d blocks", n)
	}
	if err := os.WriteFile(meminfo, []byte("Node 1 MemTotal: 1048576 kB\nNode 1 MemFree: 1048000 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := plan(); n == 0 || d.backoff[1] != nil {
		t.Fatalf("after node 1's free memory rose: %d demotions, backoff %+v", n, d.backoff[1])
	}
}

// TestUntilNext: epochs start one epoch apart whatever the moves took; an
// epoch that overran is followed after a tenth of an epoch.
func TestUntilNext(t *testing.T) {
	const epoch = time.Second
	for _, tc := range []struct{ took, want time.Duration }{
		{0, epoch},
		{600 * time.Millisecond, 400 * time.Millisecond},
		{950 * time.Millisecond, epoch / 10},
		{3 * time.Second, epoch / 10},
	} {
		if got := untilNext(tc.took, epoch); got != tc.want {
			t.Errorf("after an epoch of %v: next in %v, want %v", tc.took, got, tc.want)
		}
	}
}

// planFailedDemotions plans once, d.mu held, and fails every demotion as a
// full node would; it returns how many demotions the plan made.
func planFailedDemotions(d *Daemon) int {
	d.holdLocked()
	pl := d.planner.Plan(d.now())
	for _, m := range pl.Demote {
		_ = d.planner.Done(m.Block.ID, false, false, d.now()) // failed: the node is full
	}
	return len(pl.Demote)
}

// checkBackoffShown checks, d.mu held, that three backoffs of node 1
// reaching 8 epochs show in the status and the gauge, and were each logged
// and published once.
func checkBackoffShown(t *testing.T, d *Daemon, logs *testutil.SyncBuffer, events <-chan api.Event) {
	t.Helper()
	st := d.backoffStatus()
	if len(st) != 1 || st[0].Node != 1 || st[0].Held != "demotions" || st[0].Epochs != 8 || st[0].TimesFull != 3 {
		t.Errorf("status node_backoff = %+v", st)
	}
	var m dto.Metric
	if err := d.metrics.nodeBackoff.WithLabelValues("1").Write(&m); err != nil || m.GetGauge().GetValue() != 8 {
		t.Errorf("kvtier_node_backoff_epochs{node=\"1\"} = %v, %v; want 8", m.GetGauge().GetValue(), err)
	}
	if n := strings.Count(logs.String(), "node full (ENOMEM): backing off"); n != 3 {
		t.Errorf("%d backoff warnings logged, want one per backoff (3):\n%s", n, logs.String())
	}
	nodeEvents := 0
	for len(events) > 0 {
		if ev := <-events; ev.Type == api.EventNodeFull && ev.Node != nil && *ev.Node == 1 && strings.Contains(ev.Reason, "demotions held") {
			nodeEvents++
		}
	}
	if nodeEvents != 3 {
		t.Errorf("%d node_full events, want 3", nodeEvents)
	}
}
