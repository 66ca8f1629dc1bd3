package policy

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
	return p.res[best.idx].b, true
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
// a time.
func (p *HitDensity) sample(n int) hdCand {
	var best hdCand
	var starts [hdMaxRuns]int32
	for s := 0; s < p.cfg.Samples; {
		runs := min((p.cfg.Samples-s+hdRun-1)/hdRun, hdMaxRuns)
		touch := p.touchGhost()
		for r := range runs {
			starts[r] = int32(p.rng.IntN(n))
		}
		for _, j := range starts[:runs] {
			touch += p.touchRun(int(j), n)
		}
		p.touch = touch
		s = p.rateRuns(starts[:runs], s, n, &best)
	}
	return best
}

// rateRuns rates the runs from starts, the first of them sample s, into
// best and returns the sample after them. The density is read inline
// (rate's call, 32 a victim, is not inlined).
func (p *HitDensity) rateRuns(starts []int32, s, n int, best *hdCand) int {
	dens, clock := p.model.dens, p.clock
	for _, j := range starts {
		for k := range min(hdRun, p.cfg.Samples-s) {
			i := wrapSlot(int(j)+k, n)
			sl := &p.res[i]
			c := hdCand{dens[sl.class()][ageBucket(clock-sl.last())], int32(i)}
			if s+k == 0 || p.less(c, *best) {
				*best = c
			}
		}
		s += hdRun
	}
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
	sl := &p.res[i]
	return p.model.density(int(sl.class()), p.clock-sl.last())
}

// less orders candidates: the lower density first, then the older block,
// then the higher position (chain tail first), then the lower slot.
func (p *HitDensity) less(a, b hdCand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	sa, sb := &p.res[a.idx], &p.res[b.idx]
	if la, lb := sa.last(), sb.last(); la != lb {
		return la < lb
	}
	if sa.pos != sb.pos {
		return sa.pos > sb.pos
	}
	return a.idx < b.idx
}
