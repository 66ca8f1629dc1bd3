package plan

import "testing"

// TestVictimsFor: a victim window is bounded by the bytes left over the
// last victim's size, rounded up, and by the block budget; before the
// first victim only the budget bounds it.
func TestVictimsFor(t *testing.T) {
	tests := []struct {
		name        string
		bytes, last int64
		bud         budget
		want        int64
	}{
		{"nothing known", 1 << 20, 0, budget{}, maxWindow},
		{"nothing known, budget", 1 << 20, 0, budget{limN: true, blocks: 3}, 3},
		{"exact", 8192, 4096, budget{}, 2},
		{"rounded up", 8193, 4096, budget{}, 3},
		{"budget lower", 1 << 30, 4096, budget{limN: true, blocks: 10}, 10},
		{"bytes lower", 4096, 4096, budget{limN: true, blocks: 10}, 1},
		{"bytes budget ignored", 8192, 4096, budget{limB: true, bytes: 1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := victimsFor(tt.bytes, tt.last, &tt.bud); got != tt.want {
				t.Errorf("victimsFor(%d, %d) = %d, want %d", tt.bytes, tt.last, got, tt.want)
			}
		})
	}
}
