package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestBlocksOf: presize counts a byte budget and a shortage in blocks of
// the fast tier's mean size (every tenant's fast blocks, pooled or
// tracked), rounded up; none when nothing is fast or no bytes are asked.
func TestBlocksOf(t *testing.T) {
	tests := []struct {
		name    string
		tenants [][]int64 // sizes of each tenant's fast blocks
		slow    int       // slow blocks tracked (not counted)
		bytes   int64
		want    int64
	}{
		{"nothing fast", nil, 3, 4096, 0},
		{"no bytes", [][]int64{{4096}}, 0, 0, 0},
		{"negative bytes", [][]int64{{4096}}, 0, -5, 0},
		{"exact", [][]int64{{4096, 4096}}, 0, 8192, 2},
		{"rounded up", [][]int64{{4096, 4096}}, 0, 8193, 3},
		{"less than a block", [][]int64{{4096}}, 0, 1, 1},
		{"mean of mixed sizes", [][]int64{{4096, 4096, 4096, 100}}, 0, 6194, 2}, // mean 3097
		{"mixed sizes, rounded up", [][]int64{{4096, 4096, 4096, 100}}, 0, 6195, 3},
		{"tenants summed, mean truncated", [][]int64{{8192}, {4096, 4096}}, 2, 16384, 4}, // mean 5461, not 5461.33
		{"slow blocks ignored", [][]int64{{2 << 20}}, 100, 4 << 20, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(Config{Policy: "lru"})
			if err != nil {
				t.Fatal(err)
			}
			for ten, sizes := range tt.tenants {
				pl, err := p.OpenPool(nil, policy.Meta{Tenant: uint32(ten), Priority: policy.PriorityNormal, RefCount: 1})
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range sizes {
					p.AddToPool(pl, s)
				}
			}
			for i := range tt.slow {
				b := &policy.Block{ID: policy.BlockID(i), Meta: policy.Meta{Size: 1 << 30, Priority: policy.PriorityNormal, RefCount: 1}}
				if err := p.Track(b, false, 0); err != nil {
					t.Fatal(err)
				}
			}
			if got := p.blocksOf(tt.bytes); got != tt.want {
				t.Errorf("blocksOf(%d) = %d, want %d", tt.bytes, got, tt.want)
			}
		})
	}
}
