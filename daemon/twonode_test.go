package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// TestTwoNodeFixturePlansAndReportsFailedMoves runs the daemon on the
// emulated-CXL sysfs fixture of numa/ (node 1 slow) on this one-node host:
// the planner demotes to honour a small fast-tier budget, the mover's
// move_pages to the missing node 1 fails, and the failure is counted, fed
// back to the planner (the blocks stay fast) and never stops the loop.
func TestTwoNodeFixturePlansAndReportsFailedMoves(t *testing.T) {
	skipUnlessRoot(t)
	sys := filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys")
	cfg, err := ParseConfig("twonode.hcl", []byte(`
epoch = "100ms"
kernel_tiering = "report"
sampler "fault" {}
budgets {
  fast_bytes = "2MiB"
}
`))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	dir := t.TempDir()
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{Socket: filepath.Join(dir, "k.sock"), MetricsAddr: "127.0.0.1:0", SysRoot: sys,
		Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})})
	if err != nil {
		t.Fatalf("New on the fixture: %v", err)
	}
	if !d.moving || d.slowNode != 1 {
		t.Fatalf("fixture: moving=%v slow node %d, want moving to node 1", d.moving, d.slowNode)
	}
	testutil.RunDaemon(t, d, logs)
	ctx := context.Background()
	c := api.NewClient(filepath.Join(dir, "k.sock"))
	defer c.Close()
	wl := startWorkload(t)
	reg, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size, BlockSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "failed demotions to be counted", func() bool {
		return metric(t, d.MetricsAddr(), "kvtier_moves_not_executed_total") >= float64(reg.Blocks-8)
	})
	r, err := c.Region(ctx, reg.ID)
	if err != nil || r.SlowBytes != 0 {
		t.Fatalf("region after failed demotions = %+v, %v; want every block still fast", r, err)
	}
	if v := metric(t, d.MetricsAddr(), `kvtier_migrated_pages_total{direction="demote"}`); v != 0 {
		t.Errorf("demoted pages = %v, want 0 (node 1 does not exist on this host)", v)
	}
	st, _ := c.Status(ctx)
	if st.Epoch.Count < 1 || st.SingleNode {
		t.Errorf("status = %+v: want the loop running on a two-node topology", st.Epoch)
	}
}
