package policy

import (
	"slices"
	"testing"
)

func s3State(t *testing.T, p *S3FIFO, step string, small, main []BlockID) {
	t.Helper()
	if got := idsOf(&p.small); !slices.Equal(got, small) {
		t.Fatalf("%s: S head to tail %v, want %v", step, got, small)
	}
	if got := idsOf(&p.main); !slices.Equal(got, main) {
		t.Fatalf("%s: M head to tail %v, want %v", step, got, main)
	}
}

// TestS3FIFOSmallToMainAndGhost: a block hit while in S moves to M when it
// reaches S's tail; a block evicted from S unhit goes to G, and a miss on a
// G entry is admitted straight into M.
func TestS3FIFOSmallToMainAndGhost(t *testing.T) {
	p := NewS3FIFO(0.2, 1, Env{CapacityBlocks: 10})
	d := newUnitDriver(t, p, 10)
	d.run(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2)
	// S is over its share (2): its tail 1 and 2 were hit, so they move to
	// M; 3 was not and is evicted into G.
	d.expectEvicted(11, 3)
	s3State(t, p, "after 11", []BlockID{11, 10, 9, 8, 7, 6, 5, 4}, []BlockID{2, 1})
	if s3Node(t, p, d.block(1)).freq != 0 {
		t.Fatalf("moved block kept counter %d, want 0", s3Node(t, p, d.block(1)).freq)
	}
	d.expectEvicted(12, 4)
	if got := idsOf(&p.ghosts); !slices.Equal(got, []BlockID{4, 3}) {
		t.Fatalf("G holds %v, want 4 and 3", got)
	}
	// 3 is a ghost: the miss evicts S's tail and admits 3 into M.
	d.expectEvicted(3, 5)
	s3State(t, p, "after ghost hit on 3", []BlockID{12, 11, 10, 9, 8, 7, 6}, []BlockID{3, 2, 1})
	if s3Node(t, p, d.block(3)).queue == s3Ghost || !slices.Equal(idsOf(&p.ghosts), []BlockID{5, 4}) {
		t.Fatal("readmitted block still in G")
	}
}

// TestS3FIFOMainReinsertion: M is FIFO with reinsertion; a tail block with
// a non-zero counter goes back to the head with the counter decremented.
func TestS3FIFOMainReinsertion(t *testing.T) {
	p := NewS3FIFO(0.5, 1, Env{CapacityBlocks: 4})
	blocks := make([]*Block, 6)
	for i := range blocks {
		blocks[i] = &Block{ID: BlockID(i), Meta: Meta{Size: 1}}
	}
	victim := func(step string, want BlockID) {
		t.Helper()
		v, ok := p.Victim(0)
		if !ok || v.ID != want {
			t.Fatalf("%s: victim %v, want %d", step, v, want)
		}
	}
	for _, b := range blocks[1:5] {
		p.Admit(b, 0)
	}
	p.Access(blocks[1], 0)
	p.Access(blocks[2], 0)
	victim("first", 3) // 1 and 2 move to M, 3 is S's unhit tail
	s3State(t, p, "first", []BlockID{4, 3}, []BlockID{2, 1})
	p.Evict(blocks[3], 0)
	// S (1 block) is under its share (2): evict from M. 1 has counter 2.
	p.Access(blocks[1], 0)
	p.Access(blocks[1], 0)
	victim("second", 2) // 1 reinserted with counter 1, 2 has none
	s3State(t, p, "second", []BlockID{4}, []BlockID{1, 2})
	if s3Node(t, p, blocks[1]).freq != 1 {
		t.Fatalf("reinserted counter %d, want 1", s3Node(t, p, blocks[1]).freq)
	}
	victim("second again", 2) // Victim does not evict
	p.Evict(blocks[2], 0)
	p.Admit(blocks[3], 0) // 3 is in G: straight to M
	s3State(t, p, "ghost", []BlockID{4}, []BlockID{3, 1})
	victim("third", 3) // 1 reinserted again, counter 0
	s3State(t, p, "third", []BlockID{4}, []BlockID{1, 3})
	p.Evict(blocks[3], 0)
	victim("fourth", 1)
}

// TestS3FIFOCounterSaturates: the counter is 2 bits.
func TestS3FIFOCounterSaturates(t *testing.T) {
	p := NewS3FIFO(0.1, 1, Env{})
	b := &Block{ID: 1, Meta: Meta{Size: 1}}
	p.Admit(b, 0)
	for range 10 {
		p.Access(b, 0)
	}
	if s3Node(t, p, b).freq != 3 {
		t.Fatalf("counter %d, want 3", s3Node(t, p, b).freq)
	}
}

// s3Node returns the node of b, failing the test if b is not tracked.
func s3Node(t *testing.T, p *S3FIFO, b *Block) *node {
	t.Helper()
	n, ok := p.nodes.get(b)
	if !ok {
		t.Fatalf("block %d not tracked", b.ID)
	}
	return n
}
