package plan

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/kvtier/kvtier/policy"
)

// cand is a promotion candidate, copied out of its entry (and its ID out
// of the touched list) as the candidates are found, so that the plan
// ranks them and reads them in rank order without visiting the entries
// again or their blocks (at 10M blocks, every visit is a cache miss).
type cand struct {
	e       *entry
	b       *policy.Block
	ten     *tenant
	id      policy.BlockID
	size    int64
	heat    float64
	prio    policy.Priority
	pinned  bool
	promote bool // selected and committed: a promotion of this plan
}

// ranking is one plan's promotion candidates: found in the order they
// were found, keys ranking them, and ranked, the candidates put in rank
// order, copied out of found (so that a plan reads them in order, not
// scattered over found). Only as many keys are put in rank order as the
// plan reads (rankTo): a plan whose budget runs out after k candidates
// sorts about k of them, and one that promotes nothing sorts none. The
// planner keeps its ranking from plan to plan, so that its buffers are
// not allocated (and, at 10M blocks, page-faulted in) anew.
type ranking struct {
	found   []cand
	keys    []rankKey
	ranked  []cand       // the candidates of keys[:sorted], in order; never regrown while a plan runs
	sorted  int          // keys[:sorted] are in rank order and rank before keys[sorted:]
	scratch radixScratch // of rankTo
}

// len returns the number of candidates ranked (rankKeys).
func (r *ranking) len() int { return len(r.keys) }

// at returns the candidate of rank i, which rankTo(i+1) has put in order.
func (r *ranking) at(i int) *cand { return &r.ranked[i] }

// key returns the key of found candidate i.
func (r *ranking) key(i int) rankKey {
	c := &r.found[i]
	k := rankKey{heat: c.heat, id: c.id, i: uint32(i), class: uint16(c.prio)}
	if c.pinned {
		k.class |= 1 << 8
	}
	return k
}

// reset empties r, dropping its references to entries and blocks.
func (r *ranking) reset() {
	clear(r.found)
	clear(r.ranked)
	r.found, r.keys, r.ranked, r.sorted = r.found[:0], r.keys[:0], r.ranked[:0], 0
}

// rankTo puts at least the n best candidates (all of them if fewer) in
// rank order: the best n are selected first, so that the rest need no
// sorting until a plan reads past them.
func (r *ranking) rankTo(n int) {
	if n <= r.sorted {
		return
	}
	rest := r.keys[r.sorted:]
	k := min(n-r.sorted, len(rest))
	r.scratch.grow(len(rest))
	rankBest(rest, &r.scratch, k)
	for _, key := range rest[:k] {
		r.ranked = append(r.ranked, r.found[key.i])
	}
	r.sorted += k
}

// candidates finds the promotion candidates of this epoch (p.rank, not
// ranked yet) by their entries alone, copying out what the plan reads of
// them.
func (p *Planner) candidates(now policy.Time) *ranking {
	r := &p.rank
	r.reset()
	r.found = slices.Grow(r.found, len(p.pinnedSlow)+len(p.touched))
	for id, e := range p.pinnedSlow {
		if e.pending == pendNone && !e.fast {
			r.found = append(r.found, p.candOf(e, id))
		}
	}
	for from := 0; from < len(p.touched); from += warmBatch {
		batch := p.touched[from:min(from+warmBatch, len(p.touched))]
		p.warmEntries(batch)
		for _, t := range batch {
			if p.candidate(t.e, now) {
				r.found = append(r.found, p.candOf(t.e, t.id))
			}
		}
	}
	return r
}

// rankKeys gives every candidate found its key.
func (p *Planner) rankKeys(r *ranking) {
	r.keys = slices.Grow(r.keys[:0], len(r.found))
	r.ranked = slices.Grow(r.ranked[:0], len(r.found)) // at keeps pointers to it
	for i := range r.found {
		r.keys = append(r.keys, r.key(i))
	}
}

// candidate reports whether e, sampled this epoch, is a promotion
// candidate, bringing its heat up to date if its block may be one.
func (p *Planner) candidate(e *entry, now policy.Time) bool {
	if e.b == nil || e.fast || e.pending != pendNone || e.pinned() {
		return false
	}
	if p.noPromote&(1<<e.class()) != 0 {
		return false
	}
	if e.moved && now-e.lastMove < p.cfg.Cooldown {
		return false
	}
	if !p.reused(e) {
		return false
	}
	p.heatNow(e)
	return e.heat >= p.cfg.promoteMin()
}

// candOf copies e, the entry of block id, out as a candidate.
func (p *Planner) candOf(e *entry, id policy.BlockID) cand {
	return cand{e: e, b: e.b, ten: p.tenOf(e), id: id, size: e.sizeOf(), heat: e.heat,
		prio: e.priority(), pinned: e.pinned()}
}

// rankKey is what ranks candidate i, small for the sort.
type rankKey struct {
	heat  float64
	id    policy.BlockID
	i     uint32
	class uint16 // pinned<<8 | priority: the higher first
}

// before reports whether a ranks before b (compareRank(a, b) < 0),
// small enough to be inlined in the sort.
func (a *rankKey) before(b *rankKey) bool {
	if a.class != b.class {
		return a.class > b.class
	}
	if a.heat != b.heat {
		return a.heat > b.heat
	}
	return a.id < b.id
}

// compareRank orders candidates: pinned first, then higher priority, then
// hotter, then lower ID.
func compareRank(a, b rankKey) int {
	switch {
	case a.class != b.class:
		return cmp.Compare(b.class, a.class)
	case a.heat != b.heat:
		if a.heat > b.heat {
			return -1
		}
		return 1
	default:
		return cmp.Compare(a.id, b.id)
	}
}

// selectBest reorders keys so that keys[:k] are the k best in some order
// (quickselect, median of three pivots; 0 < k < len(keys)). Past
// 2*log2(len) partitions, which input ordered against the pivots could
// cause, it sorts what is left instead.
func selectBest(keys []rankKey, k int) {
	lo, hi := 0, len(keys)-1
	for depth := 2 * bits.Len(uint(len(keys))); lo < hi; depth-- {
		if depth == 0 {
			slices.SortFunc(keys[lo:hi+1], compareRank)
			return
		}
		p := partition(keys, lo, hi)
		switch {
		case p == k || p == k-1:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p - 1
		}
	}
}

// partition partitions keys[lo:hi+1] around a median of three and returns
// the pivot's place: every key before it ranks before it, every key after
// it ranks after it. The loop has no branch on the comparison (a key is
// always swapped, the store index advances by the comparison's outcome):
// the outcomes of random keys cannot be predicted.
func partition(keys []rankKey, lo, hi int) int {
	mid := lo + (hi-lo)/2
	if keys[mid].before(&keys[lo]) {
		keys[mid], keys[lo] = keys[lo], keys[mid]
	}
	if keys[hi].before(&keys[lo]) {
		keys[hi], keys[lo] = keys[lo], keys[hi]
	}
	if keys[hi].before(&keys[mid]) {
		keys[hi], keys[mid] = keys[mid], keys[hi]
	}
	keys[mid], keys[hi] = keys[hi], keys[mid] // the median, at hi
	pivot, store := keys[hi], lo
	for i := lo; i < hi; i++ {
		k := keys[i]
		keys[i] = keys[store]
		keys[store] = k
		store += k.beforeBit(&pivot)
	}
	keys[store], keys[hi] = keys[hi], keys[store]
	return store
}

// beforeBit is 1 if a ranks before b, else 0, computed without branches.
func (a *rankKey) beforeBit(b *rankKey) int {
	classGT, classEQ := b2i(a.class > b.class), b2i(a.class == b.class)
	heatGT, heatEQ := b2i(a.heat > b.heat), b2i(a.heat == b.heat)
	idLT := b2i(a.id < b.id)
	return classGT | classEQ&(heatGT|heatEQ&idLT)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	var i int
	if b {
		i = 1
	}
	return i
}

// sortKeys sorts keys in rank order: quicksort (the partitions of
// selectBest) down to runs of insertionRun keys, which insertion sort
// finishes; past depth partitions, slices.SortFunc sorts what is left.
// Its comparisons are inlined, and the partitions' are branch-free:
// BenchmarkRankSort measured it 1.8 times as fast as slices.SortFunc with
// compareRank (77,000 keys, a loaded host).
func sortKeys(keys []rankKey, depth int) {
	for len(keys) > insertionRun {
		if depth == 0 {
			slices.SortFunc(keys, compareRank)
			return
		}
		depth--
		p := partition(keys, 0, len(keys)-1)
		if p < len(keys)-p { // the smaller side first, the larger in turn
			sortKeys(keys[:p], depth)
			keys = keys[p+1:]
		} else {
			sortKeys(keys[p+1:], depth)
			keys = keys[:p]
		}
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j].before(&keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

// insertionRun is the length below which sortKeys sorts by insertion.
const insertionRun = 12
