package policy

import (
	"slices"
	"testing"
)

// TestLookahead: Ahead lists the blocks Victim returns when each is
// evicted in turn, up to n, and changes nothing.
func TestLookahead(t *testing.T) {
	for _, name := range []string{"lru", "fifo"} {
		for _, n := range []int{0, 1, 3, 8, 20} {
			pol, err := New(name, Env{})
			if err != nil {
				t.Fatal(err)
			}
			la, ok := pol.(Lookahead)
			if !ok {
				t.Fatalf("%s does not implement Lookahead", name)
			}
			blocks := make([]Block, 8)
			for i := range blocks {
				blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
				pol.Admit(&blocks[i], Time(i))
			}
			for _, i := range []int{2, 0, 5} {
				pol.Access(&blocks[i], Time(10+i))
			}
			got := la.Ahead([]*Block{&blocks[7]}, n)
			if pol.Len() != len(blocks) || got[0] != &blocks[7] {
				t.Fatalf("%s: Ahead changed the policy or dst", name)
			}
			var want []*Block
			for len(want) < n {
				v, ok := pol.Victim(0)
				if !ok {
					break
				}
				want = append(want, v)
				pol.Evict(v, 0)
			}
			if !slices.Equal(got[1:], want) {
				t.Errorf("%s, n=%d: Ahead %v, want %v", name, n, blockIDs(got[1:]), blockIDs(want))
			}
		}
	}
}

func blockIDs(bs []*Block) []BlockID {
	var out []BlockID
	for _, b := range bs {
		out = append(out, b.ID)
	}
	return out
}

// TestTagged: the tags given with AdmitTagged come back with the victims,
// from VictimTagged and AheadTags, in Victim's order.
func TestTagged(t *testing.T) {
	tests := []struct {
		name   string
		access []int // blocks accessed after the admissions
	}{
		{"lru", []int{2, 0, 5}},
		{"fifo", []int{2, 0, 5}},
		{"lru", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := New(tt.name, Env{})
			if err != nil {
				t.Fatal(err)
			}
			tg, ok := pol.(Tagged)
			if !ok {
				t.Fatalf("%s does not implement Tagged", tt.name)
			}
			blocks := make([]Block, 8)
			for i := range blocks {
				blocks[i] = Block{ID: BlockID(i), Meta: Meta{Size: 1}}
				tg.AdmitTagged(&blocks[i], Time(i), uint32(100+i))
			}
			for _, i := range tt.access {
				pol.Access(&blocks[i], Time(10+i))
			}
			ahead := tg.AheadTags(nil, len(blocks))
			var got []uint32
			for {
				v, tag, ok := tg.VictimTagged(0)
				if !ok {
					break
				}
				if tag != uint32(100+v.ID) {
					t.Fatalf("victim %d has tag %d, want %d", v.ID, tag, 100+v.ID)
				}
				got = append(got, tag)
				pol.Evict(v, 0)
			}
			if len(got) != len(blocks) || !slices.Equal(ahead, got) {
				t.Errorf("AheadTags %v, victims' tags %v", ahead, got)
			}
		})
	}
}

// TestEvictTagged: EvictTagged evicts the blocks in Victim's order, those
// whose slot another policy holds too, and the slots it leaves stale are
// claimed by the next table that tracks the block, list or entry table.
func TestEvictTagged(t *testing.T) {
	tests := []struct {
		name   string
		access []int // blocks accessed after the admissions
		shared []int // blocks whose slot another policy holds
	}{
		{"lru", []int{2, 0, 5}, []int{1, 6}},
		{"fifo", []int{2, 0, 5}, []int{3}},
		{"lru", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, claimer := range []string{"list", "entry table"} {
				blocks := evictTagged(t, tt.name, tt.access, tt.shared)
				var over int
				if claimer == "list" {
					next := NewLRU()
					for i := range blocks {
						next.Admit(&blocks[i], 0)
					}
					over = len(next.nodes.over)
				} else {
					var tab entryTable[windowedEntry, *windowedEntry]
					for i := range blocks {
						tab.add(&blocks[i])
					}
					over = len(tab.over)
				}
				if over != len(tt.shared) {
					t.Errorf("%s: %d blocks tracked through a map, want the %d shared", claimer, over, len(tt.shared))
				}
			}
		})
	}
}

// evictTagged admits eight blocks to a policy name with tags (and to a
// FIFO first, those in shared), accesses those in access, evicts them all
// with EvictTagged, checking each against Victim's order, and returns
// them.
func evictTagged(t *testing.T, name string, access, shared []int) []Block {
	t.Helper()
	blocks := make([]Block, 8)
	other := NewFIFO()
	for _, i := range shared {
		other.Admit(&blocks[i], 0)
	}
	pol, twin := mustNew(t, name, Env{}), mustNew(t, name, Env{})
	tg := pol.(Tagged)
	for i := range blocks {
		blocks[i].ID, blocks[i].Meta.Size = BlockID(i), 1
		tg.AdmitTagged(&blocks[i], Time(i), uint32(i))
		twin.Admit(&blocks[i], Time(i))
	}
	for _, i := range access {
		pol.Access(&blocks[i], Time(10+i))
		twin.Access(&blocks[i], Time(10+i))
	}
	for range blocks {
		want, _ := twin.Victim(0)
		twin.Evict(want, 0)
		if v, _, ok := tg.VictimTagged(0); !ok || v != want {
			t.Fatalf("victim %v, want block %d", v, want.ID)
		}
		tg.EvictTagged(0)
	}
	if _, ok := pol.Victim(0); ok || pol.Len() != 0 {
		t.Fatalf("%d blocks left after EvictTagged evicted all", pol.Len())
	}
	return blocks
}
