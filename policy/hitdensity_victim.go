package policy

import (
	"math"
	"math/rand/v2"
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
	if p.next.ok && (p.next.n != n || n <= p.cfg.Samples) {
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
	b := p.res[best.idx].b
	if n > p.cfg.Samples {
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
// a time. The first runs were drawn and loaded by the last Victim when it
// saw n residents too (drawNext).
func (p *HitDensity) sample(n int) hdCand {
	var best hdCand
	var starts [hdMaxRuns]int32
	for s := 0; s < p.cfg.Samples; {
		runs := min((p.cfg.Samples-s+hdRun-1)/hdRun, hdMaxRuns)
		if s == 0 && p.next.ok {
			starts, p.next.ok = p.next.starts, false
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
	m, lcs, first := 0, p.lc[:n], s == 0
	for _, j := range starts {
		i := int(j)
		for range min(hdRun, p.cfg.Samples-s) {
			if i >= n { // a run wraps once: it is shorter than n
				i -= n
			}
			lcv[m], idx[m] = lcs[i], int32(i)
			m++
			i++
		}
		s += hdRun
	}
	dens, clock := p.model.dens, p.clock
	bd, bl, bi := math.Inf(1), int64(0), best.idx // densities are at most 1
	if !first {
		bd, bl = best.d, lcLast(lcs[bi])
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

// touchRun loads the cache lines of lc a run from j spans: its first
// and last (hdRun = 4 values of 8 bytes span one or two lines); it
// returns a value read for the sink.
func (p *HitDensity) touchRun(j, n int) int64 {
	if n < hdRun { // wrapSlot wraps once: j+hdRun-1 may exceed 2n
		return int64(p.lc[j])
	}
	return int64(p.lc[j] + p.lc[wrapSlot(j+hdRun-1, n)])
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
	lc := p.lc[i]
	return p.model.density(int(lcClass(lc)), p.clock-lcLast(lc))
}

// less orders candidates: the lower density first, then the older block,
// then the higher position (chain tail first), then the lower slot.
func (p *HitDensity) less(a, b hdCand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	if la, lb := lcLast(p.lc[a.idx]), lcLast(p.lc[b.idx]); la != lb {
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

// hdDraws are the first runs of the next Victim, drawn by the last one
// from the generator's state after its own draws, for as many residents
// as it saw, and loaded then: an Evict and an Admit usually come between,
// so their cache misses overlap those of the victim's slot and of the
// Evict and Admit instead of adding to them. The next Victim uses them
// when it sees as many residents and samples some; else it restores the
// generator (undraw) and draws afresh, so the draws are the same.
type hdDraws struct {
	from   rand.PCG // the generator before the draws
	n      int      // residents they were drawn for
	starts [hdMaxRuns]int32
	ok     bool
}

// drawNext draws and loads the first runs of the next Victim, for n
// residents, and the record of the ghost its Evict will expire.
func (p *HitDensity) drawNext(n int) {
	d := &p.next
	d.from, d.n, d.ok = *p.pcg, n, true
	runs := min((p.cfg.Samples+hdRun-1)/hdRun, hdMaxRuns)
	touch := p.touchNextGhost()
	for r := range runs {
		d.starts[r] = int32(p.rng.IntN(n))
	}
	for _, j := range d.starts[:runs] {
		touch += p.touchRun(int(j), n)
	}
	p.touch = touch
}

// undraw forgets the runs drawn ahead and restores the generator as it
// was before them.
func (p *HitDensity) undraw() {
	*p.pcg = p.next.from
	p.next.ok = false
}

// touchNextGhost loads the record of the ghost after the oldest (among
// the next few positions) when the ghosts are at capacity: the Evict
// after the next Victim drops it. It returns a value read for the sink.
func (p *HitDensity) touchNextGhost() int64 {
	g := &p.ghosts
	if g.len() < p.cap.get() || g.len() < 2 {
		return 0
	}
	pos, _ := g.oldest()
	mask := uint64(len(g.buf) - 1)
	for k := pos + 1; k != g.head && k-pos <= 8; k++ {
		if i := g.buf[k&mask]; i != 0 {
			return p.tab.rec(i).t
		}
	}
	return 0
}
