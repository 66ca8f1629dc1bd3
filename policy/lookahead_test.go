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
