package policy

import (
	"errors"
	"math"
	"testing"
)

// chainMeta is the metadata of block pos of request seq whose prompt has
// seqLen blocks, read by refs requests so far.
func chainMeta(seq uint64, pos, seqLen, refs int32) Meta {
	return Meta{Size: 1, Priority: PriorityNormal, Seq: seq, Pos: pos, SeqLen: seqLen, RefCount: refs}
}

// Capacity 3 unit blocks; steps count accesses.
func TestPrefixChain(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		steps []step
	}{
		{
			// Request 1 reads 1, 2, 3 (positions 0-2 of a 10-block prompt);
			// request 2 evicts request 1's chain from its tail, where LRU
			// would evict 1, 2, 3.
			name: "chains leave tail first",
			spec: "prefix_chain:adapt=0",
			steps: []step{accm(1, chainMeta(1, 0, 10, 1)), accm(2, chainMeta(1, 1, 10, 1)),
				accm(3, chainMeta(1, 2, 10, 1)), accm(4, chainMeta(2, 0, 10, 1), 3),
				accm(5, chainMeta(2, 1, 10, 1), 2), accm(6, chainMeta(2, 2, 10, 1), 1)},
		},
		{
			// A hit moves a block to the current run: 1 is re-read alone
			// (a run of one) and outlives 2.
			name: "a hit joins the current run",
			spec: "prefix_chain:adapt=0",
			steps: []step{accm(1, chainMeta(1, 0, 10, 1)), accm(2, chainMeta(1, 1, 10, 1)),
				accm(3, chainMeta(1, 2, 10, 1)), accm(1, chainMeta(2, 0, 10, 2)), accm(4, chainMeta(3, 0, 10, 1), 3),
				accm(5, chainMeta(3, 1, 10, 1), 2)},
		},
		{
			// Without positions every access is a run of one: LRU.
			name:  "no chains is LRU",
			spec:  "prefix_chain",
			steps: []step{acc(1), acc(2), acc(3), acc(1), acc(4, 2), acc(5, 3), acc(6, 1)},
		},
		{
			// 3 is the last block of request 1's 3-block prompt: it goes
			// first although it is the most recent.
			name: "frontier blocks go first",
			spec: "prefix_chain:adapt=0",
			steps: []step{accm(1, chainMeta(1, 0, 3, 1)), accm(2, chainMeta(1, 1, 3, 1)),
				accm(3, chainMeta(1, 2, 3, 1)), accm(4, chainMeta(2, 0, 10, 1), 3), accm(5, chainMeta(2, 1, 10, 1), 2)},
		},
		{
			// A hit on a frontier block makes it a chain block of the
			// current run (a run of one at step 4): 2 goes first.
			name: "a hit ends probation",
			spec: "prefix_chain:adapt=0",
			steps: []step{accm(1, chainMeta(1, 0, 3, 1)), accm(2, chainMeta(1, 1, 3, 1)),
				accm(3, chainMeta(1, 2, 3, 1)), accm(3, chainMeta(1, 2, 3, 1)), accm(4, chainMeta(2, 0, 10, 1), 2),
				accm(5, chainMeta(2, 1, 10, 1), 1)},
		},
		{
			// probation=0.7 lets frontier blocks hold 2 of 3 blocks before
			// they go first: 3 stays, 1 (oldest chain) goes.
			name: "probation share",
			spec: "prefix_chain:adapt=0,probation=0.7",
			steps: []step{accm(1, chainMeta(1, 0, 3, 1)), accm(2, chainMeta(1, 1, 3, 1)),
				accm(3, chainMeta(1, 2, 3, 1)), accm(4, chainMeta(2, 0, 10, 1), 2)},
		},
		{
			// 1 is read by 3 requests (class 1): share 2 x capacity 3 = 6
			// steps of bonus, key 1+6 = 7, against 2, 3, 4, 5, 6 for
			// the private blocks read after it, so it outlives 2 to 5.
			name: "shared blocks live longer",
			spec: "prefix_chain:adapt=0,share=2",
			steps: []step{accm(1, chainMeta(1, 0, 10, 3)), accm(2, chainMeta(2, 0, 10, 1)),
				accm(3, chainMeta(3, 0, 10, 1)), accm(4, chainMeta(4, 0, 10, 1), 2), accm(5, chainMeta(5, 0, 10, 1), 3),
				accm(6, chainMeta(6, 0, 10, 1), 4), accm(7, chainMeta(7, 0, 10, 1), 5), accm(8, chainMeta(8, 0, 10, 1), 6)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			replay(t, mustNew(t, tt.spec, Env{CapacityBlocks: 3}), 3, tt.steps)
		})
	}
}

// TestPrefixChainAdapt checks that a returning shared ghost raises share
// and a returning private ghost lowers it, within bounds, and that ghosts
// are bounded by the capacity.
func TestPrefixChainAdapt(t *testing.T) {
	tests := []struct {
		name   string
		refs   int32 // RefCount of the returning blocks
		rounds int
		want   func(share float64) bool
	}{
		// 10 rounds, 9 returns: 1.1^9 = 2.358
		{"shared ghosts raise share", 4, 10, func(s float64) bool { return math.Abs(s-2.358) < 0.001 }},
		{"private ghosts lower share", 1, 10, func(s float64) bool { return math.Abs(s-1/2.358) < 0.001 }},
		{"share is bounded above", 4, 2000, func(s float64) bool { return s == maxShare }},
		{"share is bounded below", 1, 2000, func(s float64) bool { return s == minShare }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, "prefix_chain:adapt=0.1", Env{CapacityBlocks: 2}).(*PrefixChain)
			s := NewSet(p, 2)
			blocks := map[BlockID]*Block{}
			now := Time(0)
			access := func(id BlockID, m Meta) {
				b, ok := blocks[id]
				if !ok {
					b = &Block{ID: id}
					blocks[id] = b
				}
				b.Meta = m
				now++
				if !s.Access(b, now) {
					if _, err := s.Admit(b, now, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			// Each round reads the block returning as a ghost, then two
			// fresh blocks of the same sharing class that evict it again.
			for r := range tt.rounds {
				access(1, chainMeta(uint64(3*r), 0, 10, tt.refs))
				access(BlockID(100+2*r), chainMeta(uint64(3*r+1), 0, 10, tt.refs))
				access(BlockID(101+2*r), chainMeta(uint64(3*r+2), 0, 10, tt.refs))
				if g := p.shared.len() + p.private.len(); g > 4 {
					t.Fatalf("%d ghosts, want at most 2 x capacity", g)
				}
			}
			if !tt.want(p.Share()) {
				t.Fatalf("share = %v after %d rounds", p.Share(), tt.rounds)
			}
		})
	}
}

func TestPrefixChainParams(t *testing.T) {
	p := mustNew(t, "prefix_chain:share=2,adapt=0.05,probation=0.1", Env{})
	want := PrefixChainConfig{Share: 2, Adapt: 0.05, Probation: 0.1}
	if c := p.(*PrefixChain).cfg; c != want {
		t.Fatalf("config %+v, want %+v", c, want)
	}
	for _, spec := range []string{"prefix_chain:share=-1", "prefix_chain:adapt=1", "prefix_chain:adapt=-0.1",
		"prefix_chain:probation=1", "prefix_chain:share=x", "prefix_chain:nope=1"} {
		if _, err := New(spec, Env{}); !errors.Is(err, ErrBadParam) {
			t.Errorf("New(%q): err %v, want ErrBadParam", spec, err)
		}
	}
}

// TestPrefixChainUpdatePos: Update of a chain block's position re-keys it
// within its run, whose deepest block goes first.
func TestPrefixChainUpdatePos(t *testing.T) {
	p := mustNew(t, "prefix_chain", Env{CapacityBlocks: 8})
	blocks := make([]*Block, 3)
	for i := range blocks {
		blocks[i] = &Block{ID: BlockID(i + 1), Meta: Meta{Seq: 1, Pos: int32(i), SeqLen: 10, MaxLen: 10, RefCount: 1}}
		p.Access(blocks[i], Time(i+1))
		p.Admit(blocks[i], Time(i+1))
	}
	if v, ok := p.Victim(4); !ok || v != blocks[2] {
		t.Fatalf("victim %v, want the run's deepest block 3", v)
	}
	old := blocks[0].Meta
	blocks[0].Meta.Pos = 7
	p.(Updater).Update(blocks[0], old, 5)
	if v, ok := p.Victim(6); !ok || v != blocks[0] {
		t.Fatalf("victim %v, want block 1, moved to position 7", v)
	}
}
