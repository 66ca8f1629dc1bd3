package policy

import (
	"slices"
	"testing"
)

// TestSIEVEHand follows the hand in an example shaped like the paper's
// illustration: eight blocks A..H (IDs 1..8) inserted in order, A, B and G
// visited. Retained blocks keep their place; new blocks go to the head.
func TestSIEVEHand(t *testing.T) {
	p := NewSIEVE()
	d := newUnitDriver(t, p, 8)
	d.run(1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 7)
	state := func(step string, queue []BlockID, hand BlockID, visited ...BlockID) {
		t.Helper()
		if got := idsOf(&p.queue); !slices.Equal(got, queue) {
			t.Fatalf("%s: queue head to tail %v, want %v", step, got, queue)
		}
		if p.hand == nil || p.hand.b.ID != hand {
			t.Fatalf("%s: hand at %v, want %d", step, p.hand, hand)
		}
		var v []BlockID
		for n := p.queue.back(); n != nil; n = p.queue.prevOf(n) {
			if n.visited {
				v = append(v, n.b.ID)
			}
		}
		if !slices.Equal(v, visited) {
			t.Fatalf("%s: visited %v, want %v", step, v, visited)
		}
	}
	// Miss on I: the hand clears A and B and evicts C, then rests on D.
	d.expectEvicted(9, 3)
	state("after I", []BlockID{9, 8, 7, 6, 5, 4, 2, 1}, 4, 7)
	d.expectEvicted(10, 4)
	d.access(1) // A visited again, behind the hand
	d.expectEvicted(11, 5)
	d.expectEvicted(12, 6)
	// The hand reaches G: visited, cleared and kept; H goes.
	d.expectEvicted(13, 8)
	state("after M", []BlockID{13, 12, 11, 10, 9, 7, 2, 1}, 9, 1)
}

// TestSIEVEWraps checks that with every block visited the hand clears them
// all, wraps from the head to the tail and evicts the oldest.
func TestSIEVEWraps(t *testing.T) {
	p := NewSIEVE()
	d := newUnitDriver(t, p, 3)
	d.run(1, 2, 3, 1, 2, 3)
	d.expectEvicted(4, 1)
	d.expectEvicted(5, 2)
	d.expectEvicted(6, 3)
	d.expectEvicted(7, 4)
}

// TestSIEVEEvictUnderHand checks that removing the block under the hand
// moves the hand to the next newer block.
func TestSIEVEEvictUnderHand(t *testing.T) {
	p := NewSIEVE()
	d := newUnitDriver(t, p, 4)
	d.run(1, 2, 3, 4, 1)
	v, _ := p.Victim(0) // clears 1, rests on 2
	if v.ID != 2 {
		t.Fatalf("victim %d, want 2", v.ID)
	}
	d.s.Forget(d.block(2))
	if p.hand == nil || p.hand.b.ID != 3 {
		t.Fatalf("hand at %v after forgetting its block, want 3", p.hand)
	}
	if v, _ := p.Victim(0); v.ID != 3 {
		t.Fatalf("victim %d, want 3", v.ID)
	}
}
