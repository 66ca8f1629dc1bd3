package policy

import "testing"

func TestFIFO(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name:  "evicts in admission order",
			steps: []step{acc(1), acc(2), acc(3), acc(4, 1), acc(5, 2)},
		},
		{
			// LRU would evict 2 here; FIFO ignores the hit on 1.
			name:  "hits do not reorder",
			steps: []step{acc(1), acc(2), acc(3), acc(1), acc(4, 1), acc(1, 2), acc(5, 3)},
		},
		{
			name:  "readmitted block is newest",
			steps: []step{acc(1), acc(2), acc(3), acc(4, 1), acc(1, 2), acc(5, 3), acc(6, 4)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, "fifo", Env{}), 3, tt.steps)
		})
	}
}
