package policy

import (
	"math"
	"math/rand/v2"
	"unsafe"
)

// hdRun is the number of adjacent slots of res one draw of Victim rates.
const hdRun = 4

// hdCand is a candidate victim of hit_density: a slot of res and the hit
// density of the block in it.
type hdCand struct {
	d   float64
	idx int32
}

// Victim returns the sampled resident block of least hit density; with
// no more residents than samples, the least of them all.
func (p *HitDensity) Victim(Time) (*Block, bool) {
	n := len(p.res)
	if q := &p.ahead; q.n > 0 && (q.d[q.at].n != n || n <= p.cfg.Samples) {
		p.undraw()
	}
	if n == 0 {
		return nil, false
	}
	best := hdCand{p.rate(0), 0}
	if n <= p.cfg.Samples {
		for i := 1; i < n; i++ {
			if c := (hdCand{p.rate(i), int32(i)}); p.less(c, best) {
				best = c
			}
		}
	} else {
		best = p.sample(n)
	}
	p.victim = best.idx
	sl := &p.res[best.idx]
	prefetch(unsafe.Pointer(p.tab.rec(sl.rec))) // its Evict writes it
	b := sl.b
	for n > p.cfg.Samples && p.ahead.n < p.aheadMax() {
		p.drawNext(n)
	}
	return b, true
}

// hdMaxRuns is the most runs sample draws before it rates them: their
// slots are loaded first, so that their cache misses overlap.
const hdMaxRuns = 16

// sample rates Samples of the n slots, in runs of hdRun adjacent ones
// from uniformly drawn starts (wrapping at the end), and returns the
// least. The starts are drawn hdMaxRuns at a time, then every cache line
// of their runs is loaded before any is rated: the loads, issued back to
// back, do not wait on one another's misses (the draws between them would
// fill the processor's window, the rating's comparisons would serialise
// them), and the draws and the order of rating are the same as one run at
// a time. The first runs were drawn and prefetched by an earlier Victim
// when it saw n residents too (drawNext).
func (p *HitDensity) sample(n int) hdCand {
	var best hdCand
	var starts [hdMaxRuns]int32
	for s := 0; s < p.cfg.Samples; {
		runs := min((p.cfg.Samples-s+hdRun-1)/hdRun, hdMaxRuns)
		if q := &p.ahead; s == 0 && q.n > 0 {
			starts = q.d[q.at].starts
			q.at, q.n = (q.at+1)%hdAhead, q.n-1
		} else {
			touch := p.touchGhost()
			for r := range runs {
				starts[r] = int32(p.rng.IntN(n))
			}
			for _, j := range starts[:runs] {
				touch += p.touchRun(int(j), n)
			}
			p.touch = touch
		}
		s = p.rateRuns(starts[:runs], s, n, &best)
	}
	return best
}

// rateRuns rates the runs from starts, the first of them sample s, into
// best and returns the sample after them. It gathers the runs' slots
// first, then rates them in a loop that holds few values (no spills):
// the density read inline, the order of less compared inline.
func (p *HitDensity) rateRuns(starts []int32, s, n int, best *hdCand) int {
	var lcv [hdMaxRuns * hdRun]uint64
	var idx [hdMaxRuns * hdRun]int32
	m, res, first := 0, p.res[:n], s == 0
	for _, j := range starts {
		i := int(j)
		for range min(hdRun, p.cfg.Samples-s) {
			if i >= n { // a run wraps once: it is shorter than n
				i -= n
			}
			lcv[m], idx[m] = res[i].lc, int32(i)
			m++
			i++
		}
		s += hdRun
	}
	dens, clock := p.model.dens, p.clock
	bd, bl, bi := math.Inf(1), int64(0), best.idx // densities are at most 1
	if !first {
		bd, bl = best.d, lcLast(res[bi].lc)
	}
	for q, lc := range lcv[:m] {
		last := lcLast(lc)
		d := dens[int(lcClass(lc))*ageBuckets+ageBucket(clock-last)]
		if d < bd || d == bd && (last < bl || last == bl && p.tieLess(idx[q], bi)) {
			bd, bl, bi = d, last, idx[q]
		}
	}
	*best = hdCand{bd, bi}
	return s
}

// touchRun loads the slots of res a run from j spans: its first, third
// and last (hdRun = 4 slots of 24 bytes cover two or three cache lines,
// each holding one of them); it returns a value read for the sink.
func (p *HitDensity) touchRun(j, n int) int64 {
	if n < hdRun { // wrapSlot wraps once: j+hdRun-1 may exceed 2n
		return int64(p.res[j].lc)
	}
	return int64(p.res[j].lc + p.res[wrapSlot(j+hdRun/2, n)].lc + p.res[wrapSlot(j+hdRun-1, n)].lc)
}

// wrapSlot returns slot i of a ring of n slots, for i < 2n.
func wrapSlot(i, n int) int {
	if i >= n {
		i -= n
	}
	return i
}

// touchGhost loads the oldest ghost's record when the ghosts are at
// capacity: the next Evict drops the ghost, and its miss then overlaps
// the samples' instead of following them. It returns a value read for the
// sink.
func (p *HitDensity) touchGhost() int64 {
	if p.ghosts.len() < p.cap.get() || p.ghosts.len() == 0 {
		return 0
	}
	_, i := p.ghosts.oldest()
	return p.tab.rec(i).t
}

// rate returns the hit density of the block in slot i.
func (p *HitDensity) rate(i int) float64 {
	lc := p.res[i].lc
	return p.model.density(int(lcClass(lc)), p.clock-lcLast(lc))
}

// less orders candidates: the lower density first, then the older block,
// then the higher position (chain tail first), then the lower slot.
func (p *HitDensity) less(a, b hdCand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if la, lb := lcLast(p.res[a.idx].lc), lcLast(p.res[b.idx].lc); la != lb {
		return la < lb
	}
	return p.tieLess(a.idx, b.idx)
}

// tieLess orders slots a and b of equal density and age: the higher
// position first, then the lower slot.
func (p *HitDensity) tieLess(a, b int32) bool {
	if pa, pb := p.res[a].pos, p.res[b].pos; pa != pb {
		return pa > pb
	}
	return a < b
}

// hdAhead is how many Victims ahead hit_density draws its first runs.
const hdAhead = 2

// hdDraws are the first runs of a later Victim, drawn by an earlier one
// from the generator's state after its own draws (and those drawn ahead
// before), for as many residents as it saw, and prefetched then: hdAhead
// cycles of Evict, Admit and Victim come between, long enough for the
// lines to arrive (one cycle was not, with the page walks of a million
// residents). A Victim uses the oldest when it sees as many residents and
// samples some; else it restores the generator to before them all
// (undraw) and draws afresh, so the draws are the same.
type hdDraws struct {
	from   rand.PCG // the generator before the draws
	n      int      // residents they were drawn for
	starts [hdMaxRuns]int32
}

// hdAheadQ holds the draws made ahead, the oldest at d[at].
type hdAheadQ struct {
	d     [hdAhead]hdDraws
	at, n int
}

// drawNext draws the first runs of the Victim after those drawn ahead,
// for n residents, and prefetches their cache lines and the record of the
// ghost that Victim's Evict will expire: prefetches, not loads, so that
// the work between runs while the lines arrive.
func (p *HitDensity) drawNext(n int) {
	q := &p.ahead
	d := &q.d[(q.at+q.n)%hdAhead]
	d.from, d.n = *p.pcg, n
	q.n++
	runs := min((p.cfg.Samples+hdRun-1)/hdRun, hdMaxRuns)
	p.prefetchGhost(q.n)
	for r := range runs {
		d.starts[r] = int32(p.rng.IntN(n))
	}
	for _, j := range d.starts[:runs] {
		prefetch(unsafe.Pointer(&p.res[j]))
		if n >= hdRun {
			prefetch(unsafe.Pointer(&p.res[wrapSlot(int(j)+hdRun/2, n)]))
			prefetch(unsafe.Pointer(&p.res[wrapSlot(int(j)+hdRun-1, n)]))
		}
	}
}

// aheadMax returns how many Victims ahead runs are drawn: one when a
// Victim draws more runs than its first (they follow its first in the
// generator's sequence), else hdAhead.
func (p *HitDensity) aheadMax() int {
	if p.cfg.Samples > hdRun*hdMaxRuns {
		return 1
	}
	return hdAhead
}

// undraw forgets the runs drawn ahead and restores the generator as it
// was before them.
func (p *HitDensity) undraw() {
	q := &p.ahead
	*p.pcg = q.d[q.at].from
	q.n = 0
}

// prefetchGhost prefetches the record of the k-th ghost after the oldest
// (looking a few positions ahead) when the ghosts are at capacity: the
// Evict after the k-th Victim from now expires it.
func (p *HitDensity) prefetchGhost(k int) {
	g := &p.ghosts
	if g.len() < p.cap.get() || g.len() <= k {
		return
	}
	pos, _ := g.oldest()
	mask := uint64(len(g.buf) - 1)
	for end := pos + uint64(8*k); pos != g.head && pos < end; pos++ {
		if i := g.buf[(pos+1)&mask]; i != 0 {
			if k--; k == 0 {
				prefetch(unsafe.Pointer(p.tab.rec(i)))
				return
			}
		}
	}
}
