package sim

import "testing"

// TestIDMap checks that keys are numbered densely in order of first sight,
// through the table's growth, key 0 and colliding keys included.
func TestIDMap(t *testing.T) {
	tests := []struct {
		name string
		keys func(i int) uint64
		n    int
	}{
		{"small", func(i int) uint64 { return uint64(i) }, 10},
		{"grows", func(i int) uint64 { return uint64(i) * 0x9E3779B97F4A7C15 }, 5000},
		{"sparse", func(i int) uint64 { return uint64(i) << 40 }, 1000},
		{"huge keys", func(i int) uint64 { return ^uint64(i) }, 3000},
	}
	for _, tt := range tests {
		m := newIDMap(16)
		for round := range 2 {
			for i := range tt.n {
				if got := m.id(tt.keys(i)); got != uint32(i) {
					t.Fatalf("%s round %d: key %d got id %d, want %d", tt.name, round, tt.keys(i), got, i)
				}
			}
		}
		if m.Len() != tt.n {
			t.Errorf("%s: Len %d, want %d", tt.name, m.Len(), tt.n)
		}
	}
}
