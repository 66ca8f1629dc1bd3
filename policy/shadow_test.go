package policy

import "testing"

// shadowCopies makes a block's copies once, refreshes their ID, Meta and
// Next from the real block at each sync, recognises only its own copy for
// a shadow and forgets them on drop.
func TestShadowCopies(t *testing.T) {
	c := newShadowCopies(3)
	b := &Block{ID: 7, Meta: Meta{Seq: 1, Pos: 2}, Next: 9}
	cs := c.sync(b)
	if len(cs) != 3 || cs[2].ID != 7 || cs[2].Meta.Pos != 2 || cs[1].Next != 9 || cs[0].held {
		t.Fatalf("first sync: %+v", cs)
	}
	cs[1].held = true
	b.Meta.Pos, b.Next = 5, 11
	again := c.sync(b)
	if &again[0] != &cs[0] || !again[1].held || again[0].Meta.Pos != 5 || again[2].Next != 11 {
		t.Fatalf("second sync made new copies or did not refresh them: %+v", again)
	}
	for _, tc := range []struct {
		v    *Block
		i    int
		want *shadowBlock
	}{
		{&cs[1].Block, 1, &cs[1]},
		{&cs[1].Block, 0, nil}, // shadow 1's copy is not shadow 0's
		{b, 0, nil},            // the real block is no copy
		{&Block{ID: 8}, 0, nil},
	} {
		if got := c.of(tc.v, tc.i); got != tc.want {
			t.Errorf("of(%p, %d) = %p, want %p", tc.v, tc.i, got, tc.want)
		}
	}
	c.drop(7)
	if c.get(7) != nil || c.of(&cs[0].Block, 0) != nil {
		t.Fatal("copies kept after drop")
	}
	if fresh := c.sync(b); &fresh[0] == &cs[0] || fresh[1].held {
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
