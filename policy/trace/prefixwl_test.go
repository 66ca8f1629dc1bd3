package trace

import (
	"errors"
	"testing"
)

// prefix_sharing's records are what the Mooncake reader emits: each
// request reads its prompt at positions 0..SeqLen-1 in order, RefCount
// counts the requests so far that read the block, and prompts share
// blocks (system prompts, documents, earlier turns).
func TestPrefixSharingStructure(t *testing.T) {
	recs := mustWorkload(t, "prefix_sharing", WorkloadParams{Seed: 7, Steps: 20000})
	if len(recs) != 20000 {
		t.Fatalf("%d records, want 20000", len(recs))
	}
	refs := map[uint64]int32{}
	shared, seqs := 0, 0
	for i, r := range recs {
		m := r.Meta
		if i == 0 || m.Seq != recs[i-1].Meta.Seq {
			seqs++
			if m.Pos != 0 {
				t.Fatalf("record %d: request %d starts at position %d", i, m.Seq, m.Pos)
			}
		} else if m.Pos != recs[i-1].Meta.Pos+1 || m.SeqLen != recs[i-1].Meta.SeqLen {
			t.Fatalf("record %d: position %d of %d after %d of %d", i, m.Pos, m.SeqLen, recs[i-1].Meta.Pos,
				recs[i-1].Meta.SeqLen)
		}
		refs[r.Block]++
		if m.RefCount != refs[r.Block] {
			t.Fatalf("record %d: refcount %d, want %d", i, m.RefCount, refs[r.Block])
		}
		if m.RefCount > 1 {
			shared++
		}
	}
	if shared < len(recs)/4 || seqs < 100 {
		t.Fatalf("%d requests, %d of %d reads of shared blocks: want prefixes shared", seqs, shared, len(recs))
	}
}

func TestPrefixSharingParams(t *testing.T) {
	for _, p := range []WorkloadParams{{Hot: -1}, {Seqs: -1}, {Run: -1}, {Turns: -1}} {
		if _, err := NewWorkload("prefix_sharing", p); !errors.Is(err, ErrBadParam) {
			t.Errorf("%+v: %v, want ErrBadParam", p, err)
		}
	}
}
