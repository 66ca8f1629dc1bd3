package policy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSelectSequences times seed 002's benchmark shape: candidates of
// 10 blocks each with random recency, access counts and priorities, 100
// blocks to free (the seed's target is under 100 µs for 1,000 candidates).
func BenchmarkSelectSequences(b *testing.B) {
	for _, n := range []int{1000, 1 << 20} {
		r := rand.New(rand.NewPCG(5, 6))
		cands := make([]SeqCandidate, n)
		blocks := make([]BlockID, 10*n)
		for i := range cands {
			cands[i] = SeqCandidate{
				Seq: uint64(i), Blocks: blocks[10*i : 10*i+10],
				LastAccess: Time(r.IntN(1 << 30)), Accesses: int64(1 + r.IntN(10)),
				Priority: Priority(r.IntN(3)), Pinned: r.IntN(20) == 0,
				SeqLen: int32(r.IntN(100)), MaxLen: 100,
			}
			if r.IntN(2) == 0 {
				cands[i].Lifetime = r.Float64() * 10
			}
		}
		// The seed's way, a full stable sort, as the baseline.
		b.Run(fmt.Sprintf("lru-sort/candidates=%d", n), func(b *testing.B) {
			for b.Loop() {
				sortSelect(cands, 100, "lru")
			}
		})
		for _, by := range SequenceOrders {
			b.Run(fmt.Sprintf("%s/candidates=%d", by, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := SelectSequences(cands, 100, by); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		// A caller that keeps a SeqSelector and its result buffer.
		b.Run(fmt.Sprintf("lru-reused/candidates=%d", n), func(b *testing.B) {
			var sel SeqSelector
			var dst []uint64
			for b.Loop() {
				var err error
				if dst, err = sel.Select(dst[:0], cands, 100, "lru"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
