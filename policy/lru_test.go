package policy

import (
	"math/rand/v2"
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

// TestLRUOrder checks the queue's order against a reference LRU kept as
// a slice (least recent first), over random admissions, accesses,
// evictions and forgets many times the resident set, so that the queue
// grows, compacts and passes its stale places: Victim and Ahead must
// give the reference's order after every event.
func TestLRUOrder(t *testing.T) {
	tests := []struct {
		name           string
		blocks, events int
		admit, evict   int // percent of events, the rest are accesses
		seed           uint64
	}{
		{"small, access-heavy", 8, 5000, 20, 10, 1},
		{"churn", 200, 20000, 35, 30, 2},
		{"large, few evictions", 2000, 40000, 30, 5, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tt.seed, 9))
			blocks := make([]Block, tt.blocks)
			for i := range blocks {
				blocks[i].ID = BlockID(i)
			}
			p := NewLRU()
			var ref []*Block
			resident := make([]bool, tt.blocks)
			refRemove := func(b *Block) {
				ref = slices.DeleteFunc(ref, func(x *Block) bool { return x == b })
			}
			for ev := range tt.events {
				i := rng.IntN(tt.blocks)
				b := &blocks[i]
				switch r := rng.IntN(100); {
				case r < tt.admit && !resident[i]:
					p.Admit(b, 0)
					ref, resident[i] = append(ref, b), true
				case r < tt.admit+tt.evict && len(ref) > 0:
					v, _ := p.Victim(0)
					if rng.IntN(4) == 0 { // a forget of any resident block
						v = ref[rng.IntN(len(ref))]
						p.Forget(v)
					} else {
						p.Evict(v, 0)
					}
					refRemove(v)
					resident[v.ID] = false
				default:
					p.Access(b, 0)
					if resident[i] {
						refRemove(b)
						ref = append(ref, b)
					}
				}
				checkLRUOrder(t, ev, p, ref)
			}
		})
	}
}

// checkLRUOrder fails unless p's victims, by Victim and Ahead, are ref's
// blocks in order.
func checkLRUOrder(t *testing.T, ev int, p *LRU, ref []*Block) {
	t.Helper()
	if p.Len() != len(ref) {
		t.Fatalf("event %d: Len() = %d, want %d", ev, p.Len(), len(ref))
	}
	v, ok := p.Victim(0)
	if ok != (len(ref) > 0) || (ok && v != ref[0]) {
		t.Fatalf("event %d: Victim() = %v, %v, want the block of ID %v", ev, v, ok, blockIDs(ref[:min(1, len(ref))]))
	}
	if got := p.Ahead(nil, 16); !slices.Equal(got, ref[:min(16, len(ref))]) {
		t.Fatalf("event %d: Ahead %v, want %v", ev, blockIDs(got), blockIDs(ref[:min(16, len(ref))]))
	}
}

// TestLRUForgetLastPlace: a block admitted and forgotten at once (the
// planner demoting a pooled block it has just tracked) takes its place
// back off the queue, so a thousand of them leave nothing to compact.
func TestLRUForgetLastPlace(t *testing.T) {
	p := NewLRU()
	keep := &Block{ID: 1}
	p.Admit(keep, 0)
	for i := range 1000 {
		b := &Block{ID: BlockID(2 + i)}
		p.Admit(b, Time(i))
		p.Forget(b)
	}
	if len(p.q) != 1 || p.Len() != 1 {
		t.Fatalf("queue holds %d places for %d blocks, want 1", len(p.q), p.Len())
	}
	if v, ok := p.Victim(2000); !ok || v != keep {
		t.Fatalf("victim %v, want block 1", v)
	}
}
