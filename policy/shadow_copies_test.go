package policy

import (
	"fmt"
	"testing"
)

// reap drops a block's copies only when no shadow keeps state for them
// and the block was not seen for quiet syncs; sets in use go back to the
// queue's end and dropped ones leave it.
func TestShadowCopiesReap(t *testing.T) {
	follower := newShadowCache(nil, true)
	shadows := []*shadowCache{newShadowCache(nil, false), follower}
	cases := []struct {
		name string
		keep func(cs []Block) // what keeps the copies of block 1
		kept bool
	}{
		{name: "nothing", keep: func([]Block) {}},
		{name: "held", keep: func(cs []Block) { setHeld(&cs[1], true) }, kept: true},
		{name: "a policy's slot", keep: func(cs []Block) { cs[0].slot = &node{b: &cs[0]} }, kept: true},
		{name: "a stale slot", keep: func(cs []Block) { cs[0].slot = &node{b: &Block{ID: 9}} }},
		{name: "an eviction followed", keep: func(cs []Block) { follower.out.add(&node{b: &cs[1]}, 8) }, kept: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			follower.out = newIDGhosts()
			c := newShadowCopies(2, 3)
			tc.keep(c.sync(&Block{ID: 1}))
			for id := BlockID(2); id <= 4; id++ { // quiet: three syncs of others
				if c.get(1) == nil {
					t.Fatalf("copies of block 1 reaped %d syncs after it was seen (quiet 3)", id-2)
				}
				c.sync(&Block{ID: id})
				c.reap(shadows)
			}
			if kept := c.get(1) != nil; kept != tc.kept {
				t.Fatalf("copies of block 1 kept %v, want %v", kept, tc.kept)
			}
			if tc.kept && c.waiting() != 4 {
				t.Fatalf("%d sets waiting, want all 4 (block 1's put back)", c.waiting())
			}
		})
	}
	c := newShadowCopies(1, 1)
	for id := range BlockID(200) {
		c.sync(&Block{ID: id})
		c.drop(id)
		c.reap(shadows)
	}
	if c.waiting() != 0 || len(c.m) != 0 || len(c.queue) > 128 {
		t.Fatalf("dropped sets: %d waiting, %d kept, queue of %d", c.waiting(), len(c.m), len(c.queue))
	}
}

// kv_learned's and kv_request's shadows keep copies of the blocks they
// have state for, not of every block they ever saw: on a trace of
// hundreds of thousands of blocks never freed, at a capacity the shadows
// model whole, the copies stay within a bound of the capacity, and the
// decisions are those of shadows that never reap (every hit and victim).
func TestShadowCopiesBounded(t *testing.T) {
	const capacity = 64
	ops := genSeqTrace(3, traceShape{n: 150000, universe: 40000, unit: 1, seqs: true})
	for _, name := range []string{"kv_learned", "kv_request"} {
		t.Run(name, func(t *testing.T) {
			var digests [2]uint64
			for i, quiet := range []uint64{shadowQuiet, 0} {
				p, err := New(name, Env{CapacityBytes: capacity, CapacityBlocks: capacity, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				kv := p.(*KVAdaptive)
				kv.copies.quiet = quiet
				digests[i] = digestPolicy(t, p, capacity, ops)
				if n, bound := len(kv.copies.m), 2*shadowQuiet+64*capacity; quiet > 0 && n > bound {
					t.Errorf("copies of %d blocks kept, bound %d", n, bound)
				} else if quiet == 0 {
					t.Logf("without reaping: copies of %d blocks", n)
				} else {
					t.Logf("copies of %d blocks kept (%d waiting)", n, kv.copies.waiting())
				}
			}
			if digests[0] != digests[1] {
				t.Errorf("reaping changed the decisions: digest %#x, %#x without", digests[0], digests[1])
			}
		})
	}
}

// Update of a block the shadows saw refreshes its copies' Meta at once,
// without an access after it.
func TestShadowCopiesUpdate(t *testing.T) {
	p, err := New("kv_learned", Env{CapacityBytes: 8, CapacityBlocks: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	kv := p.(*KVAdaptive)
	b := &Block{ID: 3, Meta: Meta{Seq: 1, Pos: 0, Priority: PriorityNormal}}
	kv.Access(b, 1)
	kv.Admit(b, 1)
	old := b.Meta
	b.Meta.Priority, b.Meta.RefCount = PriorityHigh, 4
	kv.Update(b, old, 2)
	cs := kv.copies.get(b.ID)
	if len(cs) != len(kv.shadows) {
		t.Fatalf("%d copies for %d shadows", len(cs), len(kv.shadows))
	}
	for i := range cs {
		if cs[i].Meta != b.Meta {
			t.Errorf("copy %d: Meta %+v, want %+v", i, cs[i].Meta, b.Meta)
		}
	}
}

// A change of leader away from reuse_lru or reuse_req drains their heap
// in one sort (drainer): the same hits and victims as handing the
// residents over one Victim at a time.
func TestKVAdaptiveDrainSameDecisions(t *testing.T) {
	for _, tc := range []struct {
		spec           string
		capacity, seed int
	}{
		{"kv_adaptive:experts=reuse_req+lru,shadow=16", 64, 3},
		{"kv_adaptive:experts=reuse_req+lru,shadow=16", 256, 2},
		{"kv_adaptive:experts=reuse_lru+lru,shadow=16", 32, 1},
	} {
		t.Run(fmt.Sprintf("%s/%d/%d", tc.spec, tc.capacity, tc.seed), func(t *testing.T) {
			ops := genTrace(uint64(tc.seed), traceShape{n: 60000, universe: 1024, unit: 1, forgets: true})
			var digests [2]uint64
			for i, off := range []bool{false, true} {
				p, err := New(tc.spec, Env{CapacityBytes: int64(tc.capacity), CapacityBlocks: tc.capacity, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				kv := p.(*KVAdaptive)
				kv.noDrain = off
				digests[i] = digestPolicy(t, p, tc.capacity, ops)
				if !off && kv.drains == 0 {
					t.Fatal("no change of leader drained the old one: the test does not exercise drain")
				}
			}
			if digests[0] != digests[1] {
				t.Errorf("draining changed the decisions: digest %#x, %#x without", digests[0], digests[1])
			}
		})
	}
}
