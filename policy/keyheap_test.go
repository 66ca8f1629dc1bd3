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
			w := newTwinHeaps(t, tc.quad, tc.n)
			for j := range w.a {
				w.a[j].last, w.b[j].last = int64(j), int64(j)
				w.set(j)
				w.kh.push(&w.a[j])
				w.mh.push(&w.b[j])
			}
			w.same("push", 0)
			for i := range tc.n * 2 {
				w.op(i)
				if i%97 == 0 || tc.n < 1000 {
					w.same("op", i)
				}
			}
			w.popAll()
		})
	}
}

// twinHeaps is a keyHeap and a minHeap given the same operations on twin
// items (a in the keyHeap, b in the minHeap).
type twinHeaps struct {
	t    *testing.T
	r    *rand.Rand
	kh   keyHeap
	mh   minHeap
	a, b []item
}

func newTwinHeaps(t *testing.T, quad bool, n int) *twinHeaps {
	w := &twinHeaps{t: t, r: rand.New(rand.NewPCG(5, 6)), mh: minHeap{quad: quad},
		a: make([]item, n), b: make([]item, n)}
	w.kh.quad = quad
	return w
}

// set gives twin j a new key and tie, from few values, so that both repeat.
func (w *twinHeaps) set(j int) {
	k, tie := float64(w.r.IntN(20)), int64(w.r.IntN(10))
	w.a[j].key, w.a[j].tie, w.b[j].key, w.b[j].tie = k, tie, k, tie
}

// op pushes, removes or re-keys a random twin in both heaps.
func (w *twinHeaps) op(i int) {
	j := w.r.IntN(len(w.a))
	switch in := w.a[j].index >= 0; {
	case !in:
		w.set(j)
		w.kh.push(&w.a[j])
		w.mh.push(&w.b[j])
	case i%3 == 0:
		w.kh.remove(&w.a[j])
		w.mh.remove(&w.b[j])
	default:
		w.set(j)
		w.kh.fix(&w.a[j])
		w.mh.fix(&w.b[j])
	}
}

// same fails unless every twin sits in the same slot of both heaps.
func (w *twinHeaps) same(op string, i int) {
	w.t.Helper()
	for j := range w.a {
		if w.a[j].index != w.b[j].index {
			w.t.Fatalf("%s %d: item %d at slot %d, minHeap's at %d", op, i, j, w.a[j].index, w.b[j].index)
		}
	}
}

// popAll pops both heaps empty, wanting the same minimum each time.
func (w *twinHeaps) popAll() {
	w.t.Helper()
	for i := 0; w.kh.len() > 0; i++ {
		x, y := w.kh.min(), w.mh.min()
		if x.last != y.last {
			w.t.Fatalf("pop %d: item %d, minHeap's %d", i, x.last, y.last)
		}
		if !w.kh.holds(x) {
			w.t.Fatalf("pop %d: min not held", i)
		}
		w.kh.remove(x)
		w.mh.remove(y)
		w.same("pop", i)
	}
	if w.mh.len() != 0 || w.kh.min() != nil {
		w.t.Fatalf("lengths differ: %d left in minHeap", w.mh.len())
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
