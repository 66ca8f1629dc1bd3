package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// fixtureDaemon builds (without running) a daemon on the two-node sysfs
// fixture of numa/ (node 1 slow, missing on this host, so every move to
// it fails after its query).
func fixtureDaemon(t *testing.T, src string) (*Daemon, *testutil.SyncBuffer) {
	t.Helper()
	skipUnlessRoot(t)
	cfg, err := ParseConfig("fixture.hcl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	sys := filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys")
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{SysRoot: sys, Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.closeAll)
	return d, logs
}

// TestUnregisterDuringMove: a region unregistered while the mover works on
// its blocks (the epoch loop releases the lock for the mover) keeps its
// process handle open until the mover is done with it, then closes it.
// Before, the handle was closed under the running mover: a data race on
// the pidfd (go test -race), and a closed handle whose PID the mover went
// on naming.
func TestUnregisterDuringMove(t *testing.T) {
	d, _ := fixtureDaemon(t, `
epoch = "10s"
kernel_tiering = "report"
sampler "fault" {}
policy "lru" {}
planner {
  cooldown = "0s"
}
budgets {
  fast_bytes = "4KiB"
}
`)
	wl := startWorkload(t)
	before := testutil.Pidfds(t)
	reg, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: wl.Size, blockSz: 4096,
		source: "test", priority: policy.PriorityNormal, refcount: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.runEpoch(context.Background())
	}()
	// Wait for the plan (the mover then runs without the lock) and drop
	// the region under the mover's feet.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		planned := d.planner.Epoch() > 0
		d.mu.Unlock()
		if planned {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no plan after 10s")
		}
		time.Sleep(time.Millisecond)
	}
	if err := d.removeRegion(reg.ID); err != nil {
		t.Fatal(err)
	}
	<-done
	if n := testutil.Pidfds(t); n != before {
		t.Errorf("%d pidfds open after the epoch, %d before the region: the dropped region's handle leaked", n, before)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.regions) != 0 {
		t.Errorf("%d regions left", len(d.regions))
	}
}
