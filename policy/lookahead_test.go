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
