package policy

import (
	"math/rand/v2"
	"testing"
)

// TestKeyHeapMatchesMinHeap runs the same pushes, fixes and removals of
// one-rank items with repeated keys and ties on a keyHeap and a minHeap of
// the same arity: every item must sit in the same slot of both after each
// operation (same shape, so the same minimum, exact ties included), and
// popping must give the same sequence.
func TestKeyHeapMatchesMinHeap(t *testing.T) {
	for _, tc := range []struct {
		name string
		quad bool
		n    int
	}{
		{"binary", false, 300},
		{"quad", true, 300},
		{"binary-large", false, 20000},
		{"quad-large", true, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			var kh keyHeap
			mh := minHeap{quad: tc.quad}
			kh.quad = tc.quad
			a, b := make([]item, tc.n), make([]item, tc.n)
			same := func(op string, i int) {
				t.Helper()
				for j := range a {
					if a[j].index != b[j].index {
						t.Fatalf("%s %d: item %d at slot %d, minHeap's at %d", op, i, j, a[j].index, b[j].index)
					}
				}
			}
			set := func(j int) { // few keys and ties, so both repeat
				k, tie := float64(r.IntN(20)), int64(r.IntN(10))
				a[j].key, a[j].tie, b[j].key, b[j].tie = k, tie, k, tie
			}
			for j := range a {
				a[j].last, b[j].last = int64(j), int64(j)
				set(j)
				kh.push(&a[j])
				mh.push(&b[j])
			}
			same("push", 0)
			for i := range tc.n * 2 {
				j := r.IntN(tc.n)
				switch in := a[j].index >= 0; {
				case !in:
					set(j)
					kh.push(&a[j])
					mh.push(&b[j])
				case i%3 == 0:
					kh.remove(&a[j])
					mh.remove(&b[j])
				default:
					set(j)
					kh.fix(&a[j])
					mh.fix(&b[j])
				}
				if i%97 == 0 || tc.n < 1000 {
					same("op", i)
				}
			}
			for i := 0; kh.len() > 0; i++ {
				x, y := kh.min(), mh.min()
				if x.last != y.last {
					t.Fatalf("pop %d: item %d, minHeap's %d", i, x.last, y.last)
				}
				if !kh.holds(x) {
					t.Fatalf("pop %d: min not held", i)
				}
				kh.remove(x)
				mh.remove(y)
				same("pop", i)
			}
			if mh.len() != 0 || kh.min() != nil {
				t.Fatalf("lengths differ: %d left in minHeap", mh.len())
			}
		})
	}
}

// TestTieKeyOrder checks that comparing tieKey's keys and then the ties
// orders items as comparing (k, tie) does, for pcKey's and lfuKey's spans,
// with k and ties near the bounds where ties are clamped or lose their
// resolution.
func TestTieKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		name    string
		key     func(k, tie int64) float64
		k, span int64 // k in k ± span
		tieSpan int64 // ties in ± tieSpan
	}{
		{"pc-small", pcKey, 1000, 1000, 64},
		{"pc-near-2^26", pcKey, 1 << 26, 4, pcTieSpan},
		{"pc-large-starts", pcKey, 1 << 40, 3, 1 << 31},
		{"pc-clamped-ties", pcKey, 5000, 2, 1 << 31},
		{"pc-neighbours", pcKey, 1 << 20, 1, 2},
		{"lfu-counts", func(k, tie int64) float64 { return lfuKey(float64(k), tie) }, 3, 3, 1 << 30},
		{"lfu-near-2^10", func(k, tie int64) float64 { return lfuKey(float64(k), tie) }, 1 << 10, 2, lfuTieSpan},
		{"lfu-clamped", func(k, tie int64) float64 { return lfuKey(float64(k), tie) }, 7, 1, 1 << 50},
		{"lfu-huge-counts", func(k, tie int64) float64 { return lfuKey(float64(k), tie) }, 1 << 50, 2, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			draw := func() (int64, int64) {
				return tc.k - tc.span + r.Int64N(2*tc.span+1), -tc.tieSpan + r.Int64N(2*tc.tieSpan+1)
			}
			for range 20000 {
				k1, t1 := draw()
				k2, t2 := draw()
				want := k1 < k2 || (k1 == k2 && t1 < t2)
				x1, x2 := tc.key(k1, t1), tc.key(k2, t2)
				got := x1 < x2 || (x1 == x2 && t1 < t2)
				if got != want {
					t.Fatalf("(%d, %d) < (%d, %d): keys %v, %v give %v, want %v", k1, t1, k2, t2, x1, x2, got, want)
				}
			}
		})
	}
}
