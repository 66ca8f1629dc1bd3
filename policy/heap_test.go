package policy

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestMinHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h minHeap
	items := make([]*item, 200)
	for i := range items {
		items[i] = &item{key: float64(r.IntN(50)), tie: int64(i)}
		h.push(items[i])
	}
	// Change some keys, remove some items.
	for i := 0; i < 50; i++ {
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
	var want []*item
	for _, it := range items {
		if it.index >= 0 {
			want = append(want, it)
		}
	}
	sort.Slice(want, func(a, b int) bool {
		if want[a].key != want[b].key {
			return want[a].key < want[b].key
		}
		return want[a].tie < want[b].tie
	})
	for i, w := range want {
		got := h.min()
		if got != w {
			t.Fatalf("pop %d: got key %v tie %d, want key %v tie %d", i, got.key, got.tie, w.key, w.tie)
		}
		h.remove(got)
	}
	if h.len() != 0 {
		t.Fatalf("heap not empty: %d", h.len())
	}
}
