package policy

import (
	"slices"
	"testing"
)

func TestLRU(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		refs     []BlockID
		evicted  []BlockID
	}{
		{"no eviction under capacity", 3, []BlockID{1, 2, 3, 1, 2, 3}, nil},
		{"oldest goes first", 2, []BlockID{1, 2, 3, 4}, []BlockID{1, 2}},
		{"a hit refreshes", 2, []BlockID{1, 2, 1, 3, 4}, []BlockID{2, 1}},
		{"scan flushes", 3, []BlockID{1, 1, 1, 2, 3, 4, 5, 6}, []BlockID{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newUnitDriver(t, NewLRU(), tt.capacity)
			if got := d.run(tt.refs...); !slices.Equal(got, tt.evicted) {
				t.Fatalf("evicted %v, want %v", got, tt.evicted)
			}
		})
	}
}

func TestLRUForget(t *testing.T) {
	p := NewLRU()
	d := newUnitDriver(t, p, 3)
	d.run(1, 2, 3)
	d.s.Forget(d.block(1))
	if p.Len() != 2 {
		t.Fatalf("Len() = %d after forget, want 2", p.Len())
	}
	if v, _ := p.Victim(0); v.ID != 2 {
		t.Fatalf("victim %d, want 2", v.ID)
	}
}
