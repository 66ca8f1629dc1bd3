package policy

import "testing"

func TestLFU(t *testing.T) {
	tests := []struct {
		name  string
		cap   int64
		steps []step
	}{
		{
			// Counts: 1:3 2:1 3:2. 2 has the fewest.
			name:  "fewest accesses first",
			cap:   3,
			steps: []step{acc(1), acc(2), acc(3), acc(1), acc(1), acc(3), acc(4, 2)},
		},
		{
			// Counts all 1: the least recent (1) goes, then 2.
			name:  "ties broken by recency",
			cap:   3,
			steps: []step{acc(1), acc(2), acc(3), acc(4, 1), acc(5, 2)},
		},
		{
			// 1, 2 and 4 reach count 2, last touched at steps 4, 5 and 7:
			// 1 goes first, then the newcomer 5 (count 1).
			name: "recency among equal counts",
			cap:  3,
			steps: []step{acc(1), acc(2), acc(3), acc(1), acc(2), acc(4, 3), acc(4),
				acc(5, 1), acc(6, 5)},
		},
		{
			// After eviction 1's count restarts at 1: it is the victim
			// again before 2 (count 2).
			name:  "count restarts on admission",
			cap:   2,
			steps: []step{acc(1), acc(1), acc(2), acc(2), acc(3, 1), acc(1, 3), acc(4, 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, "lfu", Env{}), tt.cap, tt.steps)
		})
	}
}
