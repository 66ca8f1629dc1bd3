package daemon

import "testing"

// TestTierBytes: tierBytes counts as the block-by-block sum does, a short
// last block included, fast or slow.
func TestTierBytes(t *testing.T) {
	for _, length := range []uint64{10 * 4096, 10*4096 - 100, 4096, 1000} {
		for _, lastFast := range []bool{true, false} {
			r := newRegion(1, nil, 1<<40, length, 4096)
			for i := range r.blocks.len() {
				r.fast.set(i, i%3 == 0)
			}
			r.fast.set(r.blocks.len()-1, lastFast)
			var fast, slow uint64
			n := 0
			for i := range r.blocks.len() {
				if r.fast.get(i) {
					fast += r.blockLen(i)
					n++
				} else {
					slow += r.blockLen(i)
				}
			}
			gf, gs, gn := r.tierBytes()
			if gf != fast || gs != slow || gn != n {
				t.Errorf("length %d, last fast %v: tierBytes %d, %d, %d; want %d, %d, %d",
					length, lastFast, gf, gs, gn, fast, slow, n)
			}
		}
	}
}
