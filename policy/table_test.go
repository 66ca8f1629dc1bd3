package policy

import "testing"

// TestEntryTable tracks blocks in two tables at once: the first to add a
// block holds its slot, the other finds it through its map, and removing
// frees the slot for the next table. Removed entries are recycled zeroed.
func TestEntryTable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		firstInB   bool // table b adds the block before table a
		wantSlotOf string
	}{
		{"a first", false, "a"},
		{"b first", true, "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b entryTable[item, *item]
			blk := &Block{ID: 7}
			first, second := &a, &b
			if tc.firstInB {
				first, second = &b, &a
			}
			e1 := first.add(blk)
			e1.key = 3
			e2 := second.add(blk)
			if blk.slot != any(e1) {
				t.Fatalf("slot holds %v, want the entry of table %s", blk.slot, tc.wantSlotOf)
			}
			for _, c := range []struct {
				tab  *entryTable[item, *item]
				want *item
			}{{first, e1}, {second, e2}} {
				if got, ok := c.tab.get(blk); !ok || got != c.want {
					t.Fatalf("get = %p, %v; want %p", got, ok, c.want)
				}
			}
			first.remove(e1)
			if blk.slot != nil || first.len() != 0 {
				t.Fatalf("after remove: slot %v, len %d", blk.slot, first.len())
			}
			if _, ok := first.get(blk); ok {
				t.Fatal("removed block still found")
			}
			// A copy of the block is not the block: its slot is not trusted.
			cp := *blk
			cp.slot = e2
			if _, ok := first.get(&cp); ok {
				t.Fatal("another table's entry trusted")
			}
			e3 := first.add(blk)
			if e3 != e1 || e3.key != 0 || e3.b != blk || blk.slot != any(e3) {
				t.Fatalf("re-add: entry %p (recycled %p), key %v, slot %v", e3, e1, e3.key, blk.slot)
			}
			second.remove(e2)
			if _, ok := second.get(blk); ok || second.len() != 0 || blk.slot != any(e3) {
				t.Fatalf("second table after remove: len %d, slot %v", second.len(), blk.slot)
			}
		})
	}
}
