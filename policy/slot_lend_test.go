package policy

import "testing"

// TestSlotLent checks that Streaming lends its inner policy a slot: the
// inner policy keeps no block in its map, a ghost the inner policy keeps
// after an eviction gets the block's own slot back and is found through
// the lent slot again when the block returns, and no slot outlives the
// blocks' last policy.
func TestSlotLent(t *testing.T) {
	cases := []struct {
		name  string
		inner Policy
		over  func(Policy) int // blocks the inner policy keeps in its map
		ghost bool             // the inner policy keeps evicted blocks
	}{
		{"lru", NewLRU(), func(p Policy) int { return len(p.(*LRU).nodes.over) }, false},
		{"hit_density", NewHitDensity(HitDensityConfig{Samples: 4, Decay: 0.9, Period: 0.5, Horizon: 1,
			Features: FeatureReads}, Env{CapacityBlocks: 8}),
			func(p Policy) int { return len(p.(*HitDensity).tab.over) }, true},
		{"regret_adaptive", mustNew(t, "regret_adaptive", Env{CapacityBlocks: 8}),
			func(p Policy) int { return len(p.(*RegretAdaptive).tab.over) }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewStreaming(c.inner, 0, recentWindow{}) // nothing protected
			blocks := make([]*Block, 6)
			for i := range blocks {
				blocks[i] = &Block{ID: BlockID(i)}
				s.Access(blocks[i], Time(i))
				s.Admit(blocks[i], Time(i))
			}
			for _, x := range blocks {
				if e, ok := x.slot.(*streamEntry); !ok || e.lent == nil {
					t.Fatalf("block %d: slot %T lends nothing", x.ID, x.slot)
				}
			}
			v, ok := s.Victim(10)
			if !ok {
				t.Fatal("no victim")
			}
			s.Evict(v, 10)
			if _, isStream := v.slot.(*streamEntry); isStream || (v.slot != nil) != c.ghost {
				t.Fatalf("evicted block %d keeps slot %T", v.ID, v.slot)
			}
			s.Access(v, 11)
			s.Admit(v, 11)
			if n := c.over(c.inner); n != 0 {
				t.Fatalf("inner policy keeps %d blocks in its map, want 0", n)
			}
			for _, x := range blocks {
				s.Forget(x)
			}
			for _, x := range blocks {
				if x.slot != nil {
					t.Errorf("block %d keeps slot %T after Forget", x.ID, x.slot)
				}
			}
		})
	}
}

// TestDroppedNodeInLent: a tagged LRU (the planner's) and a Streaming
// track the same block, the LRU's node moved to the slot Streaming lends.
// EvictTagged drops the node; re-admitting and forgetting the block must
// leave nothing behind (a leaked map entry once made get(b) return the
// node of another block).
func TestDroppedNodeInLent(t *testing.T) {
	lru := NewLRU()
	b, d := &Block{ID: 1}, &Block{ID: 2}
	lru.AdmitTagged(b, 1, 7)                       // b.slot = lru's node
	s := NewStreaming(NewLRU(), 0, recentWindow{}) // another policy over b
	s.Access(b, 2)
	s.Admit(b, 2) // lru's node moves to the lent slot
	lru.EvictTagged(3)
	lru.AdmitTagged(b, 4, 7)
	lru.Forget(b)
	if n := len(lru.nodes.over); n != 0 {
		t.Errorf("over keeps %d entries after Forget", n)
	}
	lru.AdmitTagged(d, 5, 8)
	if n, ok := lru.nodes.get(b); ok {
		t.Fatalf("forgotten block 1 read as tracked: node of block %d", n.b.ID)
	}
	lru.Forget(b) // must not touch d
	if lru.Len() != 1 {
		t.Fatalf("Len %d after forgetting an untracked block, want 1", lru.Len())
	}
}

// TestStaleNodeMovedToLent: the same through a stale slot: EvictTagged
// leaves b's slot stale, and a Streaming admitting b claims it as free
// instead of lending it on.
func TestStaleNodeMovedToLent(t *testing.T) {
	lru := NewLRU()
	b, d := &Block{ID: 1}, &Block{ID: 2}
	lru.AdmitTagged(b, 1, 7)
	lru.EvictTagged(2) // b.slot stale
	s := NewStreaming(NewLRU(), 0, recentWindow{})
	s.Access(b, 3)
	s.Admit(b, 3) // the stale node moves to lent
	lru.AdmitTagged(b, 4, 7)
	lru.Forget(b)
	lru.AdmitTagged(d, 5, 8)
	if n, ok := lru.nodes.get(b); ok {
		t.Fatalf("forgotten block 1 read as tracked: node of block %d", n.b.ID)
	}
}

// A ghost of hit_density in its block's own slot, moved to the slot
// Streaming lends when the block is admitted without an access first
// (protected), must be taken out of the lent slot when its return drops it.
func TestStreamingGhostInLentSlot(t *testing.T) {
	p := mustNew(t, "streaming:inner=hit_density", Env{CapacityBlocks: 8}).(*Streaming)
	b := &Block{ID: 7}
	p.Access(b, 1)
	p.Admit(b, 1)
	p.Evict(b, 2) // hit_density keeps a ghost (horizon 1) in b's own slot
	b.Meta = Meta{Seq: 1, Pos: 0, SeqLen: 4}
	p.Admit(b, 3)  // pinned: Streaming lends the slot holding the ghost
	p.Access(b, 4) // the ghost returns
	if _, ok := p.in.get(b); !ok {
		t.Fatalf("Streaming lost its entry of a resident block: slot %T", b.slot)
	}
	p.Evict(b, 5)
	if p.Len() != 0 || b.slot != nil {
		t.Fatalf("after evicting the one block: %d resident, slot %T", p.Len(), b.slot)
	}
}
