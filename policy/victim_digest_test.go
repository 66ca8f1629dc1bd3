package policy

import (
	"errors"
	"fmt"
	"hash/fnv"
	"testing"
)

// Golden digests of the hits and victims of seeded runs, for the policies
// whose speed work must not change a decision: hit_density (alone, with
// every feature and a horizon, with a sample count that is no multiple of
// a run), streaming over lru and over hit_density, and the experts policies
// that run hit_density inside. The traces hold more residents than
// hit_density samples and more accesses than a refresh period, so the
// sampled Victim, the ghosts and the learned model all decide. A change of
// a digest is a change of decisions: justify it by hit ratios, never by
// updating the constant alone.

// digestRun replays ops through spec in a Set of capacity unit blocks and
// returns the FNV-1a digest of its hits and victims in order.
func digestRun(t *testing.T, spec string, capacity int, ops []traceOp) uint64 {
	t.Helper()
	p, err := New(spec, Env{CapacityBytes: int64(capacity), CapacityBlocks: capacity, Seed: 5})
	if err != nil {
		t.Fatalf("new %s: %v", spec, err)
	}
	return digestPolicy(t, p, capacity, ops)
}

// digestPolicy is digestRun with the policy p made by the caller.
func digestPolicy(t *testing.T, p Policy, capacity int, ops []traceOp) uint64 {
	t.Helper()
	var err error
	s := NewSet(p, int64(capacity))
	h := fnv.New64a()
	blocks := map[BlockID]*Block{}
	var ev []*Block
	for i, op := range ops {
		now := Time(i + 1)
		b, live := blocks[op.id]
		switch {
		case op.kind == opForget && live:
			s.Forget(b)
			delete(blocks, op.id)
		case op.kind == opPin && live:
			s.SetPinned(b, !b.Meta.Pinned, now)
		case op.kind != opAccess:
		case !live:
			b = &Block{ID: op.id, Meta: op.meta}
			blocks[op.id] = b
		case op.remeta:
			m := op.meta
			m.Size, m.Pinned = b.Meta.Size, b.Meta.Pinned
			b.Meta = m
		}
		if op.kind != opAccess {
			continue
		}
		if s.Access(b, now) {
			fmt.Fprintf(h, "h%d;", op.id)
			continue
		}
		ev, err = s.Admit(b, now, ev[:0])
		if err != nil && !errors.Is(err, ErrNoRoom) {
			t.Fatalf("op %d: admit %d: %v", i, op.id, err)
		}
		fmt.Fprintf(h, "m%d", op.id)
		for _, v := range ev {
			fmt.Fprintf(h, ",%d", v.ID)
		}
		h.Write([]byte{';'})
	}
	return h.Sum64()
}

// TestVictimDigests compares the digests of hit_density, streaming and the
// experts policies that run hit_density inside, on a mixed and a sequence
// trace, with those recorded at 027e6af (TestLearnedDigests covers the
// request-level and learned experts with sampled shadows).
func TestVictimDigests(t *testing.T) {
	mixed := genTrace(11, traceShape{n: 60000, universe: 6000, unit: 1, pins: true, forgets: true})
	seqs := genTrace(12, traceShape{n: 60000, universe: 6000, unit: 1, forgets: true, seqs: true})
	cases := []struct {
		spec        string
		mixed, seqs uint64
	}{
		{"hit_density", 0x3662d8d253fdf688, 0xb18528f5835ed218},
		{"hit_density:features=reads+frontier+gap+prefix,horizon=4", 0x7ab08f93f30d32f2, 0xfbe8355fe41369e1},
		{"hit_density:samples=7,period=0.1", 0xb89c5a755621b5e7, 0x688b01b155e7a27a},
		{"streaming:inner=lru", 0x53e3e40f46adaed0, 0xe3b3bdddbd31569b},
		{"streaming:inner=hit_density", 0xfd911dc424fa1400, 0xa674144dd7cba035},
		{"kv_adaptive", 0x59205e9e4a9e5628, 0x94e36909d5574a62},
		{"kv_adaptive:experts=hit_density+lru", 0xd46523df6754e2ab, 0xacb7cb7e93910480},
		// The policies on keyHeap: their heaps' keys (tieKey) must order
		// blocks as their minHeaps did.
		{"prefix_chain", 0xb6695d21d1b85236, 0xe59d436c34d45896},
		{"reuse_lru", 0xb2e973fde7d953b6, 0xd4356b5cdf272bac},
		{"reuse_req", 0xd5af274c14aecb30, 0xb68f95048c92777c},
		{"lecar", 0xa8088dfe1773b647, 0x3dd683856a0eb27c},
		{"cacheus", 0x83653d81aa73c04b, 0x3e55d3c9cf37635c},
		// kv_learned and kv_request decide as kv_adaptive on these traces
		// (their fifth expert never leads), so they are not repeated here:
		// TestLearnedDigests has traces where reuse_lru and reuse_req lead.
	}
	for _, c := range cases {
		t.Run(c.spec, func(t *testing.T) {
			if got := digestRun(t, c.spec, 700, mixed); got != c.mixed {
				t.Errorf("mixed trace: digest %#x, want %#x", got, c.mixed)
			}
			if got := digestRun(t, c.spec, 500, seqs); got != c.seqs {
				t.Errorf("sequence trace: digest %#x, want %#x", got, c.seqs)
			}
		})
	}
}
