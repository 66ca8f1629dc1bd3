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

// sample rates Samples of the n slots, in runs of hdRun adjacent ones
// from uniformly drawn starts (wrapping at the end), and returns the
// least.
func (p *HitDensity) sample(n int) hdCand {
	var best hdCand
	for s := 0; s < p.cfg.Samples; s += hdRun {
		j := p.rng.IntN(n)
		for k := range min(hdRun, p.cfg.Samples-s) {
			i := (j + k) % n
			if c := (hdCand{p.rate(i), int32(i)}); s+k == 0 || p.less(c, best) {
				best = c
			}
		}
	}
	return best
}

// rate returns the hit density of the block in slot i.
func (p *HitDensity) rate(i int) float64 {
	sl := &p.res[i]
	return p.model.density(int(sl.class), p.clock-sl.last)
}

// less orders candidates: the lower density first, then the older block,
// then the higher position (chain tail first), then the lower slot.
func (p *HitDensity) less(a, b hdCand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	sa, sb := &p.res[a.idx], &p.res[b.idx]
	if sa.last != sb.last {
		return sa.last < sb.last
	}
	if sa.pos != sb.pos {
		return sa.pos > sb.pos
	}
	return a.idx < b.idx
}
