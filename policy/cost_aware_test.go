package policy

import "testing"

func TestCostAware(t *testing.T) {
	big := Meta{Size: 2, Priority: PriorityNormal}
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{
			// Keys L + f/size. 1 (2 bytes, key 0.5) goes first although it
			// is the most recent; L becomes 0.5. 2 and 3 climb to 2.5 with
			// a hit; 1 comes back at 1.5+0.5 after 4 (1.5) left, and
			// goes before them; 6 fits; then 2 (2.5, older than 3).
			name: "size, frequency and clock",
			spec: "cost_aware",
			steps: []step{acc(2), acc(3), accm(1, big), acc(4, 1), acc(2), acc(3), acc(1, 4),
				acc(5, 1), acc(6), acc(7, 2)},
		},
		{
			// Without the size penalty all keys are 1 at first: the least
			// recent goes, as in LRU.
			name:  "no size penalty",
			spec:  "cost_aware:size_exp=0",
			steps: []step{acc(2), acc(3), accm(1, big), acc(4, 2), acc(3), acc(5, 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, tt.spec, Env{}), 4, tt.steps)
		})
	}
}

// TestCostAwareSweep replays the seed's periodic_reuse failure: a cyclic
// sweep over more bytes than fit, where LRU never hits. Small blocks stay
// under cost_aware, so it hits.
func TestCostAwareSweep(t *testing.T) {
	hits := func(spec string) int {
		s := NewSet(mustNew(t, spec, Env{}), 16)
		blocks := make([]*Block, 12)
		for i := range blocks {
			size := int64(1)
			if i%2 == 0 {
				size = 4
			}
			blocks[i] = &Block{ID: BlockID(i), Meta: Meta{Size: size}}
		}
		n := 0
		for step := range 240 {
			b := blocks[step%len(blocks)]
			if s.Access(b, Time(step)) {
				n++
				continue
			}
			if _, err := s.Admit(b, Time(step), nil); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	lru, cost := hits("lru"), hits("cost_aware")
	if lru != 0 || cost == 0 {
		t.Fatalf("hits: lru %d, cost_aware %d; want 0 and more than 0", lru, cost)
	}
}
