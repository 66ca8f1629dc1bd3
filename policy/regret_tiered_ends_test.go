package policy

import (
	"math/rand/v2"
	"testing"
)

// An rtList's ends stay the first and last rtDensityScan records of the
// list through random pushes, removals anywhere (from either end, inside
// one, past it) and moves to the front, for lengths from empty through
// short (both ends the whole list) to long.
func TestRTEnds(t *testing.T) {
	const records = 80
	tab := newRTTable(newRATable(records))
	l := rtList{kind: rtSimC, ends: &rtEnds{}}
	in := make([]bool, records+1)
	r := rand.New(rand.NewPCG(3, 9))
	for step := range 40000 {
		i := uint32(1 + r.IntN(records))
		switch {
		case !in[i]:
			l.pushFront(tab, i)
			in[i] = true
		case r.IntN(3) == 0:
			l.moveToFront(tab, i)
		default:
			l.remove(tab, i)
			in[i] = false
		}
		checkRTEnds(t, step, &l, tab)
	}
}

// checkRTEnds walks l from both ends and compares with its ends.
func checkRTEnds(t *testing.T, step int, l *rtList, tab *rtTable) {
	t.Helper()
	n := min(l.len(), rtDensityScan)
	for k, i := 0, l.head; k < n; k, i = k+1, l.link(tab, i).next {
		if l.ends.front[k] != i {
			t.Fatalf("step %d, %d records: front[%d] = %d, want %d", step, l.len(), k, l.ends.front[k], i)
		}
	}
	for k, i := 0, l.tail; k < n; k, i = k+1, l.link(tab, i).prev {
		if l.ends.back[k] != i {
			t.Fatalf("step %d, %d records: back[%d] = %d, want %d", step, l.len(), k, l.ends.back[k], i)
		}
	}
}
