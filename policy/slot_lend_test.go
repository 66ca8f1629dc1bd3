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
			func(p Policy) int { return len(p.(*HitDensity).entries.over) }, true},
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
