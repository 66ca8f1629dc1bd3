package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestIndex puts, finds and deletes IDs of several patterns and checks
// which groups turn sparse and that a directory stays within its bound.
func TestIndex(t *testing.T) {
	hashed := func(i int) policy.BlockID { return policy.BlockID(uint32(i) * 0x9e3779b1) }
	tests := []struct {
		name       string
		n          int
		id         func(i int) policy.BlockID
		dense      uint32 // Planner.Dense's declaration for group 0
		wantSparse bool
	}{
		{name: "dense from 0", n: 5000, id: func(i int) policy.BlockID { return policy.BlockID(i) }},
		{name: "dense in a region", n: 3000, id: func(i int) policy.BlockID { return 7<<32 | policy.BlockID(i) }},
		{name: "dense at an offset", n: 2000, id: func(i int) policy.BlockID { return 1<<20 + policy.BlockID(i) }},
		{name: "strided by 4", n: 2000, id: func(i int) policy.BlockID { return policy.BlockID(4 * i) }},
		{name: "strided by 64", n: 2000, id: func(i int) policy.BlockID { return policy.BlockID(64 * i) }, wantSparse: true},
		{name: "hashed 32-bit", n: 4000, id: hashed, wantSparse: true},
		{name: "one high ID", n: 1, id: func(int) policy.BlockID { return 1<<32 - 1 }, wantSparse: true},
		{name: "strided by 64, declared dense", n: 2000, id: func(i int) policy.BlockID { return policy.BlockID(64 * i) },
			dense: 64 * 2000},
		{name: "hashed 32-bit, declared dense below", n: 4000, id: hashed, dense: 1 << 20, wantSparse: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x index
			if tt.dense > 0 {
				x.dense = map[uint32]uint32{0: tt.dense}
			}
			for i := range tt.n {
				x.put(tt.id(i), uint32(i))
			}
			if x.n != tt.n || len(x.groups) != 1 {
				t.Fatalf("n %d groups %d, want %d and 1", x.n, len(x.groups), tt.n)
			}
			for _, g := range x.groups {
				if sparse := g.sparse != nil; sparse != tt.wantSparse {
					t.Fatalf("sparse %v, want %v", sparse, tt.wantSparse)
				}
				limit := max(maxDirBytesPerID*g.n+dirSlack, (int(tt.dense)/dirPage+1)*(dirPage*4+8))
				if bytes := len(g.dir)*8 + g.pages*dirPage*4; bytes > limit {
					t.Fatalf("directory of %d bytes for %d IDs", bytes, g.n)
				}
			}
			for i := range tt.n {
				if s, ok := x.get(tt.id(i)); !ok || s != uint32(i) {
					t.Fatalf("get(%#x) = %d, %v, want %d", tt.id(i), s, ok, i)
				}
			}
			if _, ok := x.get(tt.id(tt.n-1) + 1<<33); ok {
				t.Fatal("found an ID of another group")
			}
			for i := 0; i < tt.n; i += 2 {
				x.del(tt.id(i))
			}
			for i := range tt.n {
				if _, ok := x.get(tt.id(i)); ok != (i%2 == 1) {
					t.Fatalf("after deleting the even ones, get(%#x) found %v", tt.id(i), ok)
				}
			}
			for i := 1; i < tt.n; i += 2 {
				x.del(tt.id(i))
			}
			if x.n != 0 || len(x.groups) != 0 {
				t.Fatalf("after deleting all: n %d groups %d", x.n, len(x.groups))
			}
		})
	}
}

// TestStoreReusesSlotsAfterPlan checks that an untracked block's slot is
// reused only after the next plan, and that the planner with hashed IDs
// still finds every block.
func TestStoreReusesSlotsAfterPlan(t *testing.T) {
	p, err := New(Config{Policy: "lru"})
	if err != nil {
		t.Fatal(err)
	}
	blocks := make([]policy.Block, 3000)
	for i := range blocks {
		blocks[i] = policy.Block{ID: policy.BlockID(uint32(i) * 0x9e3779b1), Meta: policy.Meta{Size: 1}}
		if err := p.Track(&blocks[i], i%2 == 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1000 {
		if err := p.Untrack(blocks[i].ID); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(p.ents.free); got != 0 {
		t.Fatalf("%d slots free before the plan, want 0", got)
	}
	p.Plan(1)
	if got := len(p.ents.free); got != 1000 {
		t.Fatalf("%d slots free after the plan, want 1000", got)
	}
	for i := range 1000 {
		if err := p.Track(&blocks[i], false, 2); err != nil {
			t.Fatal(err)
		}
	}
	if p.ents.used != 3000 || p.Stats().Tracked != 3000 {
		t.Fatalf("slots used %d, tracked %d, want 3000 and 3000", p.ents.used, p.Stats().Tracked)
	}
	for i, b := range blocks {
		fast, tracked := p.Fast(b.ID)
		if !tracked || fast != (i >= 1000 && i%2 == 0) {
			t.Fatalf("block %d: fast %v tracked %v", i, fast, tracked)
		}
	}
}
