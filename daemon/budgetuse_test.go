package daemon

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy/plan"
)

// TestBytesPerSecBudgetUse: the migrate_bytes_per_sec budget use is the
// bytes the epoch moved over the epoch's length, the rate the budget
// limits. Before, it was the mover's speed while it ran (bytes over the
// Run's elapsed time), so an epoch that moved half its allowance in a
// burst showed many times the limit (test/ TestPolicies' known bug).
func TestBytesPerSecBudgetUse(t *testing.T) {
	d, _ := fixtureDaemon(t, `
epoch = "1s"
kernel_tiering = "report"
sampler "fault" {}
budgets {
  migrate_bytes_per_sec = "8MiB"
  pages_per_epoch = 4096
}
`)
	tests := []struct {
		name      string
		moved     uint64
		elapsed   time.Duration
		wantRatio float64
		wantBPS   int64
	}{
		{"half the allowance in 10ms", 4 << 20, 10 * time.Millisecond, 0.5, 4 << 20},
		{"the whole allowance in 500ms", 8 << 20, 500 * time.Millisecond, 1, 8 << 20},
		{"nothing", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &numa.Report{BytesMoved: tt.moved, Elapsed: tt.elapsed,
				PagesToSlow: int(tt.moved / uint64(numa.PageSize))}
			if tt.elapsed > 0 {
				rep.BytesPerSec = float64(tt.moved) / tt.elapsed.Seconds()
			}
			d.mu.Lock()
			d.finishEpoch(time.Now(), 0, &plan.Plan{}, rep, tenantHits{})
			use := d.budgetUse
			d.mu.Unlock()
			var m dto.Metric
			if err := d.metrics.budgetUse.WithLabelValues("migrate_bytes_per_sec").Write(&m); err != nil {
				t.Fatal(err)
			}
			if got := m.GetGauge().GetValue(); got != tt.wantRatio {
				t.Errorf("budget_usage_ratio{budget=\"migrate_bytes_per_sec\"} = %v, want %v", got, tt.wantRatio)
			}
			if use.BytesPerSec != tt.wantBPS {
				t.Errorf("status budget use %d bytes/s, want %d", use.BytesPerSec, tt.wantBPS)
			}
		})
	}
}
