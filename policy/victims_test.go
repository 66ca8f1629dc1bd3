package policy

import (
	"errors"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func cand(seq uint64, blocks int, last Time, acc int64, prio Priority) SeqCandidate {
	c := SeqCandidate{Seq: seq, LastAccess: last, Accesses: acc, Priority: prio}
	for i := range blocks {
		c.Blocks = append(c.Blocks, BlockID(seq*100+uint64(i)))
	}
	return c
}

func TestSelectSequences(t *testing.T) {
	base := []SeqCandidate{
		cand(1, 2, 50, 9, PriorityHigh),
		cand(2, 2, 10, 5, PriorityNormal),
		cand(3, 3, 30, 1, PriorityNormal),
		cand(4, 1, 20, 1, PriorityLow),
		cand(5, 4, 5, 2, PriorityNormal),
	}
	pinned := slices.Clone(base)
	pinned[4].Pinned = true // the oldest, 5, is pinned
	pred := []SeqCandidate{
		{Seq: 1, Blocks: []BlockID{1}, LastAccess: 1},                        // nothing known
		{Seq: 2, Blocks: []BlockID{2}, LastAccess: 2, SeqLen: 9, MaxLen: 10}, // 0.9
		{Seq: 3, Blocks: []BlockID{3}, LastAccess: 3, Lifetime: 7.5},         // known lifetime
		{Seq: 4, Blocks: []BlockID{4}, LastAccess: 4, Lifetime: 2},           // shortest
		{Seq: 5, Blocks: []BlockID{5}, LastAccess: 5, SeqLen: 1, MaxLen: 10}, // 0.1
		{Seq: 6, Blocks: []BlockID{6}, LastAccess: 0, Pinned: true, Lifetime: 1},
	}
	tests := []struct {
		name    string
		cands   []SeqCandidate
		need    int
		by      string
		want    []uint64
		wantErr error
	}{
		{name: "lru one", cands: base, need: 1, by: "lru", want: []uint64{5}},
		{name: "lru greedy", cands: base, need: 6, by: "lru", want: []uint64{5, 2}},
		{name: "lru skips pinned", cands: pinned, need: 3, by: "lru", want: []uint64{2, 4}},
		{name: "lfu ties by recency", cands: base, need: 4, by: "lfu", want: []uint64{4, 3}},
		{name: "qos", cands: base, need: 5, by: "qos_aware", want: []uint64{4, 5}},
		{name: "qos normal by recency", cands: pinned, need: 5, by: "qos_aware", want: []uint64{4, 2, 3}},
		{name: "predictive", cands: pred, need: 5, by: "predictive", want: []uint64{4, 3, 2, 5, 1}},
		{name: "nothing needed", cands: base, need: 0, by: "lru"},
		{name: "not enough", cands: pinned, need: 9, by: "lru", want: []uint64{2, 4, 3, 1}, wantErr: ErrNoRoom},
		{name: "unknown order", cands: base, need: 1, by: "arc", wantErr: ErrUnknownPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SelectSequences(tt.cands, tt.need, tt.by)
			if !errors.Is(err, tt.wantErr) || (err != nil && tt.wantErr == nil) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSelectSequencesMatchesSort checks the heap selection against a full
// stable sort, as seed 002 does it, on random candidates.
func TestSelectSequencesMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sel SeqSelector // reused across calls, as a steady caller would
	var buf []uint64
	for round := range 500 {
		cands := make([]SeqCandidate, 1+r.IntN(60))
		for i := range cands {
			// Some sequences hold no block; recency ties are common.
			c := cand(uint64(i), r.IntN(6), Time(r.IntN(20)), int64(r.IntN(4)), Priority(r.IntN(3)))
			c.Pinned = r.IntN(5) == 0
			switch r.IntN(3) {
			case 0:
				c.Lifetime = float64(1+r.IntN(8)) / 4
			case 1:
				c.SeqLen, c.MaxLen = int32(r.IntN(10)), 10
			}
			cands[i] = c
		}
		need := 1 + r.IntN(40)
		for _, by := range SequenceOrders {
			want := sortSelect(cands, need, by)
			got, _ := SelectSequences(cands, need, by)
			if !slices.Equal(got, want) {
				t.Fatalf("round %d by %s need %d: got %v, want %v", round, by, need, got, want)
			}
			buf, _ = sel.Select(buf[:0], cands, need, by)
			if !slices.Equal(buf, want) {
				t.Fatalf("round %d by %s need %d: reused selector got %v, want %v", round, by, need, buf, want)
			}
		}
	}
}

// TestSeqSelectorAllocs checks that a reused selector with room in dst
// allocates nothing.
func TestSeqSelectorAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cands := make([]SeqCandidate, 1000)
	for i := range cands {
		cands[i] = cand(uint64(i), 1+r.IntN(10), Time(r.IntN(1<<20)), 1, PriorityNormal)
	}
	var sel SeqSelector
	dst := make([]uint64, 0, 64)
	if allocs := testing.AllocsPerRun(50, func() {
		if _, err := sel.Select(dst[:0], cands, 100, "lru"); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations per Select, want 0", allocs)
	}
}

func sortSelect(cands []SeqCandidate, need int, by string) []uint64 {
	var ev []SeqCandidate
	for _, c := range cands {
		if !c.Pinned {
			ev = append(ev, c)
		}
	}
	sort.SliceStable(ev, func(i, j int) bool {
		a, b := ev[i], ev[j]
		switch by {
		case "predictive":
			ra, ka := predOrder(a)
			rb, kb := predOrder(b)
			if ra != rb {
				return ra < rb
			}
			if ka != kb {
				return ka < kb
			}
		case "lfu":
			if a.Accesses != b.Accesses {
				return a.Accesses < b.Accesses
			}
		case "qos_aware":
			if a.Priority != b.Priority {
				return a.Priority < b.Priority
			}
		}
		return a.LastAccess < b.LastAccess
	})
	var out []uint64
	freed := 0
	for _, c := range ev {
		if freed >= need {
			break
		}
		out = append(out, c.Seq)
		freed += len(c.Blocks)
	}
	return out
}

// predOrder is predictive's rank and key of c, compared as plain numbers:
// a known lifetime first (shortest first), then a known completion ratio
// (highest first), then neither.
func predOrder(c SeqCandidate) (int, float64) {
	switch {
	case c.Lifetime > 0:
		return 0, c.Lifetime
	case c.MaxLen > 0:
		return 1, -float64(c.SeqLen) / float64(c.MaxLen)
	}
	return 2, 0
}
