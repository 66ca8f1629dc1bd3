package lab

// The lab's prefetch hook (kv_hierarchy_lab/simulator/engine.py at its
// commit 44700f89, the engine of its artifacts/default_sweep): after every
// access, once the demand path has run, the engine asks the policy for
// pages to prefetch (maybe_prefetch) and takes at most its
// max_prefetch_candidates of them (Config.Prefetch here; the lab's
// scenarios use 2). For each proposed page, in the policy's order:
//
//   - a page already in tier 0 is skipped and not counted;
//   - a page in no tier is first inserted into the slowest tier, free, as a
//     cold miss is;
//   - a page whose earlier prefetch is still pending is skipped;
//   - otherwise it counts as a prefetch request, becomes pending and is
//     promoted into tier 0 from the tier holding it exactly as a demand
//     promotion is (room made by the policy's victims, the transfer's
//     latency added to the run's total, its bytes to bytes moved), except
//     that the bytes count as prefetch bytes.
//
// A pending page is useful when it is next accessed (it is still in
// tier 0 then: the access is a hit) and wasted when it leaves tier 0
// first; pages still pending at the end count as wasted. So requests =
// useful + wasted, and the usefulness ratio is useful / requests. Only a
// policy with a prefetch method (predictive) proposes pages; with any
// other policy, or Prefetch 0, a run is the run without the hook. The
// hook always takes the lab's path, whatever the Model switches say: a
// proposed page in no tier goes through the slowest tier.

// prefetcher is a policy that proposes pages to prefetch after an access
// (the lab's maybe_prefetch), most wanted first.
type prefetcher interface {
	prefetch(page int) []int
}

// prefetchState is the engine's prefetch bookkeeping.
type prefetchState struct {
	depth   int        // max_prefetch_candidates; 0: off
	pol     prefetcher // nil: the policy proposes nothing
	pending []bool     // prefetched, not yet accessed, still in tier 0
}

// afterAccess runs after the demand path of an access: a pending
// prefetch of page becomes useful, and the policy's proposals are
// prefetched.
func (e *engine) afterAccess(page int) {
	if e.pf.pending[page] {
		e.pf.pending[page] = false
		e.res.PrefetchUseful++
	}
	if e.pf.depth == 0 || e.pf.pol == nil {
		return
	}
	cands := e.pf.pol.prefetch(page)
	if len(cands) > e.pf.depth {
		cands = cands[:e.pf.depth]
	}
	for _, c := range cands {
		if e.err != nil {
			return
		}
		in := e.lookup(c)
		if in == 0 {
			continue
		}
		if in < 0 {
			e.insertCold(c)
			if in = e.lookup(c); in < 0 {
				continue
			}
		}
		if e.pf.pending[c] {
			continue
		}
		e.pf.pending[c] = true
		e.res.PrefetchRequests++
		e.promote(c, in, true)
	}
}

// leftFast notes that page left tier 0: a pending prefetch of it was
// wasted.
func (e *engine) leftFast(page int) {
	if e.pf.pending[page] {
		e.pf.pending[page] = false
		e.res.PrefetchWasted++
	}
}

// finishPrefetch counts the prefetches still pending at the end of a run
// as wasted and sets the usefulness ratio.
func (e *engine) finishPrefetch() {
	for p, on := range e.pf.pending {
		if on {
			e.pf.pending[p] = false
			e.res.PrefetchWasted++
		}
	}
	if e.res.PrefetchRequests > 0 {
		e.res.PrefetchUsefulness = float64(e.res.PrefetchUseful) / float64(e.res.PrefetchRequests)
	}
}
