package policy

import (
	"slices"
	"testing"
)

// victims drains p and returns the victims' IDs in order.
func victims(p Policy) []BlockID {
	var out []BlockID
	for {
		v, ok := p.Victim(0)
		if !ok {
			return out
		}
		out = append(out, v.ID)
		p.Evict(v, 0)
	}
}

// TestSlotShared checks policies that track the same blocks at once: the
// first holds the blocks' slots, the others fall back to their maps, and
// each keeps its own order.
func TestSlotShared(t *testing.T) {
	blocks := make([]*Block, 5)
	for i := range blocks {
		blocks[i] = &Block{ID: BlockID(i)}
	}
	a, b := NewLRU(), NewLRU()
	for _, x := range blocks {
		a.Admit(x, 0)
	}
	for _, x := range slices.Backward(blocks) {
		b.Admit(x, 0)
	}
	a.Access(blocks[0], 1)
	b.Access(blocks[4], 1)
	a.Forget(blocks[2])
	if len(b.nodes.over) != 5 {
		t.Fatalf("second LRU holds %d blocks in its map, want 5", len(b.nodes.over))
	}
	// blocks[2]'s slot is free again: a third policy claims it.
	c := NewLRU()
	c.Admit(blocks[2], 0)
	if n, ok := blocks[2].slot.(*node); !ok || n.owner != &c.nodes {
		t.Fatalf("slot of a forgotten block not reclaimed")
	}
	if got, want := victims(a), []BlockID{1, 3, 4, 0}; !slices.Equal(got, want) {
		t.Errorf("first LRU evicts %v, want %v", got, want)
	}
	if got, want := victims(b), []BlockID{3, 2, 1, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("second LRU evicts %v, want %v", got, want)
	}
	if got := victims(c); !slices.Equal(got, []BlockID{2}) {
		t.Errorf("third LRU evicts %v, want [2]", got)
	}
	for _, x := range blocks {
		if x.slot != nil {
			t.Errorf("block %d keeps a slot after every policy evicted it", x.ID)
		}
	}
}

// TestSlotStale checks that a slot left by a discarded policy is ignored:
// the block is tracked through the map.
func TestSlotStale(t *testing.T) {
	x := &Block{ID: 7}
	NewLRU().Admit(x, 0) // discarded while tracking x
	p := NewLRU()
	if p.Access(x, 1); p.Len() != 0 {
		t.Fatalf("Len = %d: a stale slot was taken for a tracked block", p.Len())
	}
	p.Admit(x, 1)
	if len(p.nodes.over) != 1 {
		t.Fatalf("block with a stale slot not tracked through the map")
	}
	if v, ok := p.Victim(2); !ok || v != x {
		t.Fatalf("victim %v, want block 7", v)
	}
	p.Forget(x)
	if p.Len() != 0 || p.nodes.len() != 0 {
		t.Fatalf("Len = %d after Forget", p.Len())
	}
}

// TestNodeTableRecycles checks that a table reuses freed nodes.
func TestNodeTableRecycles(t *testing.T) {
	var tab nodeTable
	x, y := &Block{ID: 1}, &Block{ID: 2}
	n := tab.add(x)
	tab.remove(n)
	if m := tab.add(y); m != n || m.b != y || x.slot != nil {
		t.Fatalf("freed node not reused cleanly")
	}
	if allocs := testing.AllocsPerRun(100, func() {
		tab.remove(tab.add(x))
	}); allocs != 0 {
		t.Fatalf("%v allocations per add and remove, want 0", allocs)
	}
}
