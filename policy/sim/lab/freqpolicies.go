package lab

import "sort"

// The lab's frequency-biased policies (kv_hierarchy_lab/policies/
// heavy_hitter.py, windowed.py and predictive.py): each scores a page by
// a count times a constant plus the step of its last access (-1 never)
// and evicts the first page of lowest score. They ignore insertions and
// evictions.

// Lab defaults of predictive (PredictivePrefetchPolicy).
const (
	defaultMaxPrefetches = 2 // max_prefetches
	defaultMinConfidence = 2 // min_confidence
	windowSize           = 32
)

// freqScore keeps frequency and last access; score is freq*mult + last.
type freqScore struct {
	labHooks
	mult       int
	freq, last []int
}

func newFreqScore(n, mult int) freqScore {
	return freqScore{mult: mult, freq: make([]int, n), last: filled(n, -1)}
}

func (p *freqScore) access(page, step int) { p.freq[page]++; p.last[page] = step }
func (p *freqScore) inserted(int, int)     {}
func (p *freqScore) evicted(int, int)      {}
func (p *freqScore) victim(_ int, cands []int, _ int) int {
	return argmin(cands, func(pg int) float64 { return float64(p.freq[pg]*p.mult + p.last[pg]) })
}

// heavyHitter is the lab's heavy_hitter: frequency*10,000 + recency.
func newHeavyHitter(n int) *freqScore {
	p := newFreqScore(n, 10_000)
	return &p
}

// windowed is the lab's windowed_recency: the page's accesses among the
// last 32 times 1,000,000 plus the step of its last access.
type windowed struct {
	labHooks
	ring   []int // the window, oldest first
	inWin  []int
	last   []int
	window int
}

func newWindowed(n int) *windowed {
	return &windowed{inWin: make([]int, n), last: filled(n, -1), window: windowSize}
}

func (p *windowed) access(page, step int) {
	p.ring = append(p.ring, page)
	p.inWin[page]++
	if len(p.ring) > p.window {
		p.inWin[p.ring[0]]--
		p.ring = p.ring[1:]
	}
	p.last[page] = step
}
func (p *windowed) inserted(int, int) {}
func (p *windowed) evicted(int, int)  {}
func (p *windowed) victim(_ int, cands []int, _ int) int {
	return argmin(cands, func(pg int) float64 { return float64(p.inWin[pg]*1_000_000 + p.last[pg]) })
}

// transition is a counted successor of a page, in first-seen order.
type transition struct{ page, count int }

// predictive is the lab's predictive policy: it evicts like heavy_hitter
// with frequency*100 + recency and learns page-to-page transitions (the
// page accessed right after each page, counted); after an access to p it
// proposes p's max most frequent successors seen at least confidence
// times, most frequent first, ties in the order the successors were first
// seen (Python's Counter.most_common).
type predictive struct {
	freqScore
	prev          int
	next          [][]transition
	max, minCount int
}

func newPredictive(n, maxPrefetches, minConfidence int) *predictive {
	return &predictive{freqScore: newFreqScore(n, 100), prev: -1, next: make([][]transition, n),
		max: maxPrefetches, minCount: minConfidence}
}

func (p *predictive) access(page, step int) {
	if p.prev >= 0 {
		p.count(p.prev, page)
	}
	p.prev = page
	p.freqScore.access(page, step)
}

func (p *predictive) count(from, to int) {
	for i := range p.next[from] {
		if p.next[from][i].page == to {
			p.next[from][i].count++
			return
		}
	}
	p.next[from] = append(p.next[from], transition{to, 1})
}

func (p *predictive) prefetch(page int) []int {
	ts := append([]transition(nil), p.next[page]...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].count > ts[j].count })
	var out []int
	for i, t := range ts {
		if i >= p.max {
			break
		}
		if t.count >= p.minCount {
			out = append(out, t.page)
		}
	}
	return out
}
