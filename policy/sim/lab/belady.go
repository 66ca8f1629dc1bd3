package lab

import (
	"math"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// Bélády in the lab's multi-tier model is defined for tier 0 only: on a
// tier-0 eviction it picks the resident page whose next access is
// furthest in the future (never: furthest of all; ties: the first page to
// have entered tier 0), and below tier 0 it picks as the lab's lru does.
// Tier 0's contents change only by promotions (every access not served
// by tier 0 promotes its page) and by tier-0 evictions, so the tier-0 hit
// ratio depends only on the tier-0 victims and the lower tiers' choice
// cannot change it. With equal page sizes this is the optimal demand
// policy's hit ratio (Bélády's MIN); with the lab's sizes, which differ
// by a few percent, furthest-next-use is the usual reference, not a
// proven bound. It is measured without prefetch: a prefetching policy can
// exceed it.

// PolicyBelady is the name of the lab model's tier-0 Bélády.
const PolicyBelady = "belady"

// belady evicts from tier 0 the page used furthest in the future and from
// the tiers below the lab's lru victim.
type belady struct {
	lru
	after []int // after[step]: the next step reading the same page (MaxInt: none)
	next  []int // next[page]: the next step reading page
}

func newBelady(lt trace.LabTrace) *belady {
	n := len(lt.Sizes)
	b := &belady{lru: *newLRU(n), after: make([]int, len(lt.Accesses)), next: filled(n, math.MaxInt)}
	for step := len(lt.Accesses) - 1; step >= 0; step-- {
		page := lt.Accesses[step]
		b.after[step] = b.next[page]
		b.next[page] = step
	}
	return b
}

func (b *belady) access(page, step int) {
	b.lru.access(page, step)
	b.next[page] = b.after[step]
}

func (b *belady) victim(t int, cands []int, step int) int {
	if t > 0 {
		return b.lru.victim(t, cands, step)
	}
	best := 0
	for i := 1; i < len(cands); i++ {
		if b.next[cands[i]] > b.next[cands[best]] {
			best = i
		}
	}
	return best
}

// beladyHitRatio runs the lab model's tier-0 Bélády on the trace and
// hierarchy (prefetch off) and returns its tier-0 hit ratio.
func beladyHitRatio(h sim.Hierarchy, lt trace.LabTrace, q sim.Quant) (float64, error) {
	r, err := Run(Config{Hierarchy: h, Trace: lt, Spec: Spec{Name: PolicyBelady}, Quant: q})
	return r.HitRatio, err
}
