package policy

import "testing"

// shadowCopies makes a block's copies once, refreshes their ID and Meta
// from the real block at each sync (never Next, where a shadow records
// whether it holds the copy) and forgets them on drop, never reusing
// them.
func TestShadowCopies(t *testing.T) {
	c := newShadowCopies(3, 0)
	b := &Block{ID: 7, Meta: Meta{Seq: 1, Pos: 2}, Next: 9}
	cs := c.sync(b)
	if len(cs) != 3 || cs[2].ID != 7 || cs[2].Meta.Pos != 2 || held(&cs[0]) || held(&cs[1]) {
		t.Fatalf("first sync: %+v", cs)
	}
	setHeld(&cs[1], true)
	b.Meta.Pos, b.Next = 5, shadowHeld
	again := c.sync(b)
	if &again[0] != &cs[0] || !held(&again[1]) || held(&again[0]) || again[0].Meta.Pos != 5 {
		t.Fatalf("second sync made new copies, did not refresh them or copied Next: %+v", again)
	}
	setHeld(&cs[1], false)
	if held(&cs[1]) {
		t.Fatal("setHeld(false) left the copy held")
	}
	c.drop(7)
	if c.get(7) != nil {
		t.Fatal("copies kept after drop")
	}
	if fresh := c.sync(b); &fresh[0] == &cs[0] {
		t.Fatal("a dropped block's copies were reused")
	}
}

// With sampled shadows the real cache's expert holds the slot of every
// block, sampled ones included (the shadows' policies track copies), so
// it keeps no block in its map (two LRUs, so the first keeps the lead).
func TestKVAdaptiveShadowsLeaveSlots(t *testing.T) {
	const n = 256
	p := mustNew(t, "kv_adaptive:experts=lru+lru,shadow=16", Env{CapacityBlocks: n}).(*KVAdaptive)
	if p.rate < 2 {
		t.Fatalf("shadows sample 1 block in %d", p.rate)
	}
	d := newUnitDriver(t, p, n)
	for i := range 4 * n {
		d.access(BlockID(i % (2 * n)))
	}
	lru := p.real.(*LRU)
	if len(lru.nodes.over) != 0 {
		t.Fatalf("the real expert keeps %d blocks in its map", len(lru.nodes.over))
	}
	sampled := 0
	for _, b := range d.blocks {
		if p.shadowCopies(b) != nil {
			sampled++
		}
		if n, ok := b.slot.(*node); d.s.Contains(b.ID) && (!ok || n.owner != &lru.nodes) {
			t.Fatalf("block %d: slot %T is not the real expert's", b.ID, b.slot)
		}
	}
	if sampled == 0 || sampled == len(d.blocks) {
		t.Fatalf("%d of %d blocks have shadow copies", sampled, len(d.blocks))
	}
}
