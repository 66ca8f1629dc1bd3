package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/kvtier/kvtier/policy"
)

// TestMoveCallErrorsCounted: a move whose move_pages(2) call failed as a
// whole (here ENODEV: node 1 of the fixture is not on this host; in the
// field ENOMEM from a full node, EPERM, ESRCH) has no per-page errno, and
// was neither counted in kvtier_migration_errors_total nor logged: a
// full slow node went unnoticed. Its skipped pages are counted under the
// call's errno, and the epoch logs why moves failed.
func TestMoveCallErrorsCounted(t *testing.T) {
	d, logs := fixtureDaemon(t, `
epoch = "10s"
kernel_tiering = "report"
sampler "fault" {}
planner {
  cooldown = "0s"
  headroom = 0 # only the budget's 15 demotions
}
budgets {
  fast_bytes = "64KiB"
}
`)
	if !d.moving {
		t.Skip("the kernel's own tiering is on here and kernel_tiering is report, so the daemon does not move")
	}
	wl := startWorkload(t)
	if _, err := d.addRegion(regionSpec{pid: wl.PID(), addr: wl.Addr, length: 1 << 20, blockSz: 64 << 10,
		source: "test", priority: policy.PriorityNormal, refcount: 1}); err != nil {
		t.Fatal(err)
	}
	d.runEpoch(context.Background())
	// 15 blocks of 16 pages over the fast tier, every demotion refused.
	if got := labelledValue(t, d.metrics.migErrors.WithLabelValues("ENODEV")); got != 15*16 {
		t.Errorf(`kvtier_migration_errors_total{errno="ENODEV"} = %v, want %d`, got, 15*16)
	}
	if !strings.Contains(logs.String(), "moves failed") || !strings.Contains(logs.String(), "no such NUMA node") {
		t.Errorf("the failed moves are not logged:\n%s", logs.String())
	}
}

// labelledValue reads a labelled counter without a scrape.
func labelledValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}
