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

// TestPresize: a plan's Demote is pre-sized for the victims it expects,
// bounded by each limit of the budget (bytes counted in blocks of the
// fast tier's mean size), and not at all when it expects none.
func TestPresize(t *testing.T) {
	tests := []struct {
		name       string
		n, inBytes int64
		bud        budget
		wantCap    int
	}{
		{"no limit", 100, 0, budget{}, 100},
		{"blocks", 100, 0, budget{limN: true, blocks: 10}, 10},
		{"pages", 100, 0, budget{limP: true, pages: 20}, 20},
		{"bytes", 100, 30, budget{limB: true, bytes: 30 << 12}, 30},
		{"the lowest", 100, 30, budget{limB: true, limN: true, blocks: 40, limP: true, pages: 5}, 5},
		{"none expected", 0, 30, budget{limB: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := &Plan{}
			pl.presize(tt.n, tt.inBytes, &tt.bud)
			if cap(pl.Demote) != tt.wantCap || len(pl.Demote) != 0 {
				t.Errorf("Demote len %d cap %d, want 0 and %d", len(pl.Demote), cap(pl.Demote), tt.wantCap)
			}
		})
	}
}
