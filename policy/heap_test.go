package policy

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestMinHeapOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		quad bool
		n    int
	}{
		{"binary", false, 200},
		{"quad", true, 200},
		{"binary-large", false, 5000},
		{"quad-large", true, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			h := minHeap{quad: tc.quad}
			items := make([]*item, tc.n)
			for i := range items {
				items[i] = &item{rank: int32(r.IntN(3)), key: float64(r.IntN(50)), tie: int64(i)}
				h.push(items[i])
			}
			// Change some orders, remove some items.
			for i := 0; i < tc.n/4; i++ {
				it := items[r.IntN(len(items))]
				if it.index < 0 {
					continue
				}
				if i%3 == 0 {
					h.remove(it)
					continue
				}
				it.key = float64(r.IntN(50))
				h.fix(it)
			}
			// Change all keys at once.
			h.each(func(it *item) { it.key = float64(r.IntN(50)) })
			h.reheap()
			checkPops(t, &h, items)
		})
	}
}

// checkPops pops h empty and compares with the items still in it, sorted.
func checkPops(t *testing.T, h *minHeap, items []*item) {
	t.Helper()
	var want []*item
	for _, it := range items {
		if it.index >= 0 {
			want = append(want, it)
		}
	}
	if h.len() != len(want) {
		t.Fatalf("len %d, want %d", h.len(), len(want))
	}
	sort.Slice(want, func(a, b int) bool {
		x, y := want[a], want[b]
		if x.rank != y.rank {
			return x.rank < y.rank
		}
		if x.key != y.key {
			return x.key < y.key
		}
		return x.tie < y.tie
	})
	for i, w := range want {
		got := h.min()
		if got != w {
			t.Fatalf("pop %d: got (%d, %v, %d), want (%d, %v, %d)", i, got.rank, got.key, got.tie, w.rank, w.key, w.tie)
		}
		h.remove(got)
	}
	if h.len() != 0 || h.min() != nil {
		t.Fatalf("heap not empty: %d", h.len())
	}
}
