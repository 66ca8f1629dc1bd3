package policy

import "testing"

// TestBeladyWorkedExample replays a textbook reference string with 3 frames:
// 7 0 1 2 0 3 0 4 2 3 0 3 2 1 2 0 1 7 0 1 has 9 misses under MIN (and 12
// under LRU).
func TestBeladyWorkedExample(t *testing.T) {
	refs := []BlockID{7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1}
	next := nextUses(refs)
	tests := []struct {
		name   string
		p      Policy
		misses int
	}{
		{"belady", NewBelady(), 9},
		{"lru", NewLRU(), 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newUnitDriver(t, tt.p, 3)
			misses := 0
			for i, id := range refs {
				b := d.block(id)
				b.Next = next[i]
				if !d.s.Contains(id) {
					misses++
				}
				d.access(id)
			}
			if misses != tt.misses {
				t.Fatalf("%d misses, want %d", misses, tt.misses)
			}
		})
	}
}

// TestBeladyEvictsFurthest checks the first eviction of the example: with
// 7, 0, 1 resident at step 3, 7 is used again furthest away (step 17).
func TestBeladyEvictsFurthest(t *testing.T) {
	refs := []BlockID{7, 0, 1, 2}
	next := []Time{18, 5, 14, 9}
	d := newUnitDriver(t, NewBelady(), 3)
	for i, id := range refs[:3] {
		d.block(id).Next = next[i]
		d.access(id)
	}
	d.block(2).Next = next[3]
	d.expectEvicted(2, 7)
}

// nextUses returns, for each position of refs, the step (1-based, as the
// unit driver's clock) of the next access to the same ID, or Never.
func nextUses(refs []BlockID) []Time {
	out := make([]Time, len(refs))
	last := map[BlockID]Time{}
	for i := len(refs) - 1; i >= 0; i-- {
		out[i] = Never
		if n, ok := last[refs[i]]; ok {
			out[i] = n
		}
		last[refs[i]] = Time(i + 1)
	}
	return out
}
