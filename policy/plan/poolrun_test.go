package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestAddRunToPool: a run added in one call leaves the pool, its tenant
// and the fast tier counted as the same blocks added one by one.
func TestAddRunToPool(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int64
	}{
		{"none", nil},
		{"one", []int64{4096}},
		{"full blocks", []int64{4096, 4096, 4096}},
		{"short last block", []int64{4096, 4096, 100}},
		{"one short block", []int64{100}},
	}
	m := policy.Meta{Tenant: 2, Priority: policy.PriorityNormal, RefCount: 1}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pools [2]*Pool
			var planners [2]*Planner
			for k := range planners {
				p, err := New(Config{Policy: "lru"})
				if err != nil {
					t.Fatal(err)
				}
				if pools[k], err = p.OpenPool(nil, m); err != nil {
					t.Fatal(err)
				}
				planners[k] = p
			}
			var bytes, largest int64
			for _, s := range tt.sizes {
				planners[0].AddToPool(pools[0], s)
				bytes += s
				largest = max(largest, s)
			}
			planners[1].AddRunToPool(pools[1], len(tt.sizes), bytes, largest)
			if a, b := pools[0], pools[1]; a.blocks != b.blocks || a.bytes != b.bytes || a.maxSize != b.maxSize {
				t.Errorf("pool one by one %+v, as a run %+v", *pools[0], *pools[1])
			}
			if one, run := planners[0].Stats(), planners[1].Stats(); one.FastBytes != run.FastBytes ||
				one.Tenants[0] != run.Tenants[0] {
				t.Errorf("stats one by one %+v, as a run %+v", one, run)
			}
			if pools[1].Blocks() != len(tt.sizes) {
				t.Errorf("pool holds %d blocks, want %d", pools[1].Blocks(), len(tt.sizes))
			}
		})
	}
}
