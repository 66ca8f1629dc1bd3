package daemon

import (
	"math/rand/v2"
	"testing"
)

// TestTierBits: the bitset's get, count, next and load agree with a
// []bool of the same tiers, across word boundaries and at a length that
// is not a multiple of 64.
func TestTierBits(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		fast  func(i int) bool
		start bool // the tiers before load
		load  int  // blocks loaded (the others keep start)
	}{
		{"all fast", 130, func(int) bool { return true }, false, 130},
		{"all slow", 130, func(int) bool { return false }, true, 130},
		{"every third", 200, func(i int) bool { return i%3 == 0 }, true, 200},
		{"random", 1000, func(i int) bool { return rand.New(rand.NewPCG(uint64(i), 9)).IntN(2) == 0 }, false, 1000},
		{"partly loaded", 150, func(i int) bool { return i%2 == 0 }, true, 100},
		{"one block", 1, func(int) bool { return false }, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := make([]bool, tt.n)
			for i := range want {
				want[i] = tt.start
				if i < tt.load {
					want[i] = tt.fast(i)
				}
			}
			bits := newTierBits(tt.n, tt.start)
			bits.load(want[:tt.load])
			for i, f := range want {
				if bits.get(i) != f {
					t.Fatalf("block %d fast %v, want %v", i, bits.get(i), f)
				}
			}
			for _, r := range [][2]int{{0, tt.n}, {1, tt.n}, {0, tt.n / 2}, {tt.n / 3, tt.n - 1}, {5, 5}, {63, 65}} {
				lo, hi := min(r[0], tt.n), min(r[1], tt.n)
				count, next := 0, hi
				for i := hi - 1; i >= lo; i-- {
					if want[i] {
						count++
						next = i
					}
				}
				if got := bits.count(lo, hi); got != count {
					t.Errorf("count(%d, %d) = %d, want %d", lo, hi, got, count)
				}
				if got := bits.next(lo, hi); got != next {
					t.Errorf("next(%d, %d) = %d, want %d", lo, hi, got, next)
				}
			}
		})
	}
}
