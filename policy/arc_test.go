package policy

import (
	"slices"
	"testing"
)

// TestARCWorkedExample follows ARC's REPLACE and its p adaptation by hand
// with c = 4 blocks.
func TestARCWorkedExample(t *testing.T) {
	a := NewARC(Env{CapacityBlocks: 4})
	d := newUnitDriver(t, a, 4)
	lists := func(step string, t1, t2, b1, b2 []BlockID, p float64) {
		t.Helper()
		got := [][]BlockID{idsOf(&a.lists[arcT1]), idsOf(&a.lists[arcT2]), idsOf(&a.lists[arcB1]), idsOf(&a.lists[arcB2])}
		want := [][]BlockID{t1, t2, b1, b2}
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%s: T1 T2 B1 B2 = %v, want %v", step, got, want)
			}
		}
		if a.P() != p {
			t.Fatalf("%s: p = %v, want %v", step, a.P(), p)
		}
	}
	if ev := d.run(1, 2, 3, 4, 1, 2); len(ev) != 0 {
		t.Fatalf("warm-up evicted %v", ev)
	}
	lists("after 1 2 3 4 1 2", []BlockID{4, 3}, []BlockID{2, 1}, nil, nil, 0)

	// |T1| = 2 > p = 0: misses evict from T1 into B1.
	d.expectEvicted(5, 3)
	d.expectEvicted(6, 4)
	lists("after 5 6", []BlockID{6, 5}, []BlockID{2, 1}, []BlockID{4, 3}, nil, 0)

	// A B1 hit: p grows by max(1, |B2|/|B1|) = 1, then |T1| = 2 > p
	// still evicts from T1; the ghost comes back into T2.
	d.expectEvicted(3, 5)
	lists("after B1 hit on 3", []BlockID{6}, []BlockID{3, 2, 1}, []BlockID{5, 4}, nil, 1)

	// |T1| = 1 = p and the new block is no B2 ghost: evict from T2.
	d.expectEvicted(7, 1)
	lists("after 7", []BlockID{7, 6}, []BlockID{3, 2}, []BlockID{5, 4}, []BlockID{1}, 1)

	// A B2 hit: p shrinks by max(1, |B1|/|B2|) = 2, clamped at 0.
	d.expectEvicted(1, 6)
	lists("after B2 hit on 1", []BlockID{7}, []BlockID{1, 3, 2}, []BlockID{6, 5, 4}, nil, 0)

	// |T1|+|B1| <= c: admitting 8 into T1 drops the oldest B1 ghost (4).
	d.expectEvicted(8, 7)
	lists("after 8", []BlockID{8}, []BlockID{1, 3, 2}, []BlockID{7, 6, 5}, nil, 0)
}

// TestARCTieGoesToT1OnB2Hit checks REPLACE's tie rule: with |T1| = p, a
// block coming back from B2 makes T1 give up its LRU block.
func TestARCTieGoesToT1OnB2Hit(t *testing.T) {
	a := NewARC(Env{CapacityBlocks: 3})
	d := newUnitDriver(t, a, 3)
	d.run(1, 1, 2, 2, 3) // T1=[3], T2=[2,1]
	d.expectEvicted(4, 3)
	d.expectEvicted(5, 4) // T1=[5], T2=[2,1], B1=[4,3]
	// B1 hit on 3: p = 1 = |T1|, 3 is no B2 ghost: T2 gives up 1.
	d.expectEvicted(3, 1)
	// B1 hit on 4: p = 2 > |T1|: T2 gives up 2.
	d.expectEvicted(4, 2)
	// B2 hit on 1: p = 1 = |T1| and 1 comes from B2: T1 gives up 5.
	d.expectEvicted(1, 5)
	if a.P() != 1 {
		t.Fatalf("p = %v, want 1", a.P())
	}
}

func TestARCGhostsBounded(t *testing.T) {
	const c = 8
	a := NewARC(Env{CapacityBlocks: c})
	d := newUnitDriver(t, a, c)
	for i := range 10000 {
		d.access(BlockID((i * 7919) % 97))
		t1, t2, b1, b2 := a.Sizes()
		if t1+b1 > c || t1+t2+b1+b2 > 2*c || a.nodes.len() != t1+t2+b1+b2 {
			t.Fatalf("step %d: |T1|=%d |T2|=%d |B1|=%d |B2|=%d, %d nodes", i, t1, t2, b1, b2, a.nodes.len())
		}
	}
}
