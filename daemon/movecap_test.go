package daemon

import (
	"testing"
	"time"

	"github.com/kvtier/kvtier/numa"
)

// TestMoverSpeedCap: the plan is sized to what the mover moved per second
// of its runs, over moveCapShare of the deadline; a run cut by the
// deadline lowers the estimate at once; small runs do not count.
func TestMoverSpeedCap(t *testing.T) {
	type run struct {
		bytes   uint64
		elapsed time.Duration
		cut     bool
	}
	tests := []struct {
		name  string
		runs  []run
		floor int64
		want  int64
	}{
		{"nothing measured", nil, 4 << 20, 0},
		{"small run ignored", []run{{4096, time.Millisecond, false}}, 0, 0},
		{"one run", []run{{100 << 20, time.Second, false}}, 0, 40 << 20},
		{"average", []run{{100 << 20, time.Second, false}, {50 << 20, time.Second, false}}, 0, 30 << 20},
		{"cut run taken at once", []run{{100 << 20, time.Second, false}, {10 << 20, time.Second, true}}, 0, 4 << 20},
		{"floor", []run{{10 << 20, time.Second, true}}, 8 << 20, 8 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s moverSpeed
			for _, r := range tt.runs {
				s.observe(&numa.Report{BytesMoved: r.bytes, Elapsed: r.elapsed}, r.cut)
			}
			got := s.capFor(500*time.Millisecond, tt.floor)
			// 0.8 of a 500 ms deadline: 0.4 s of the measured speed.
			if d := got - tt.want; d > 1 || d < -1 {
				t.Errorf("cap %d bytes, want %d", got, tt.want)
			}
		})
	}
}
