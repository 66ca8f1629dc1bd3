package daemon

import (
	"testing"
)

// TestMoverCarriesPlan: the planner plans migrate_bytes_per_sec x epoch
// bytes per epoch, and the mover, starting an epoch with the tokens the
// loop saved while it was not moving, may move all of them before its
// deadline. Before, the mover had a tenth of a second of burst plus half
// an epoch of rate (0.6 of the plan at a 1 s epoch), so the moves planned
// last were not executed every epoch.
func TestMoverCarriesPlan(t *testing.T) {
	tests := []struct {
		name string
		src  string
	}{
		{"1s epoch", "epoch = \"1s\"\nbudgets {\n  migrate_bytes_per_sec = \"8MiB\"\n}\n"},
		{"500ms epoch", "epoch = \"500ms\"\nbudgets {\n  migrate_bytes_per_sec = \"256MiB\"\n}\n"},
		{"short move_timeout", "epoch = \"2s\"\nbudgets {\n  migrate_bytes_per_sec = \"1MiB\"\n  move_timeout = \"100ms\"\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := fixtureDaemon(t, "kernel_tiering = \"report\"\nsampler \"fault\" {}\n"+tt.src)
			cfg := d.Config()
			planned := d.planner.Config().Budget.MoveBytes
			want := cfg.Budgets.MigrateBytesPerSec * int64(cfg.Epoch) / 1e9
			if planned != want {
				t.Fatalf("planner plans %d bytes per epoch, want rate x epoch = %d", planned, want)
			}
			if can := d.mover.RunBytes(cfg.MoveDeadline()); can < planned {
				t.Errorf("the mover may move %d bytes before its %v deadline, the planner plans %d per epoch",
					can, cfg.MoveDeadline(), planned)
			}
		})
	}
}
