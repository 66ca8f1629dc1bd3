package policy

import "testing"

func TestHeavyHitter(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		cap   int64
		steps []step
	}{
		{
			// 1 leaves with score 2 and comes back with 3, tying 2 (3) but
			// more recent, so 2 goes before it; 3 comes back with 2.
			name: "score survives eviction",
			spec: "heavy_hitter", cap: 2,
			steps: []step{acc(1), acc(1), acc(2), acc(2), acc(2), acc(3, 1), acc(1, 3),
				acc(3, 2), acc(4, 3)},
		},
		{
			// Without history 1 comes back with score 1 and loses to 2.
			name: "no history",
			spec: "heavy_hitter:history=0", cap: 2,
			steps: []step{acc(1), acc(1), acc(2), acc(2), acc(2), acc(3, 1), acc(1, 3),
				acc(3, 1)},
		},
		{
			// Lowest score goes; ties by recency.
			name: "lowest score first",
			spec: "heavy_hitter", cap: 3,
			steps: []step{acc(1), acc(2), acc(3), acc(2), acc(1), acc(4, 3), acc(5, 4)},
		},
		{
			// The recent window (1 block of 3) shields 3 (score 1); 1 and 2
			// (score 2) are ranked and the older one goes.
			name: "recent window",
			spec: "heavy_hitter:recent=0.34", cap: 3,
			steps: []step{acc(1), acc(1), acc(2), acc(2), acc(3), acc(4, 1)},
		},
		{
			name: "same without the window",
			spec: "heavy_hitter", cap: 3,
			steps: []step{acc(1), acc(1), acc(2), acc(2), acc(3), acc(4, 3)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, tt.spec, Env{}), tt.cap, tt.steps)
		})
	}
}

func TestHeavyHitterGhostBound(t *testing.T) {
	p := NewHeavyHitter(0, 1, Env{CapacityBlocks: 4})
	s := NewSet(p, 4)
	for i := range 100 {
		b := &Block{ID: BlockID(i), Meta: Meta{Size: 1}}
		s.Access(b, Time(i))
		if _, err := s.Admit(b, Time(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if g := p.ghosts.len(); g != 4 {
		t.Fatalf("ghosts = %d, want 4 (history 1 x capacity 4)", g)
	}
}
