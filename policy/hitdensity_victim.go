package policy

// hdRun is the number of adjacent slots of res a fresh draw rates.
const hdRun = 4

// hdCand is a candidate victim of hit_density: a slot of res and the hit
// density of the block in it.
type hdCand struct {
	d   float64
	idx int32
}

// Victim returns the candidate resident block of least hit density; with
// no more residents than samples, the least of them all.
func (p *HitDensity) Victim(Time) (*Block, bool) {
	n := len(p.res)
	if n == 0 {
		return nil, false
	}
	if n <= p.cfg.Samples {
		p.pool = p.pool[:0]
		best := hdCand{p.rate(0), 0}
		for i := 1; i < n; i++ {
			if c := (hdCand{p.rate(i), int32(i)}); p.less(c, best) {
				best = c
			}
		}
		return p.res[best.idx].b, true
	}
	p.rank(n)
	return p.res[p.pool[0].idx].b, true
}

// rank rates again the kept candidates whose slot still exists (the
// block in it may have changed), adds fresh ones drawn uniformly among
// the n slots, sorts them by density and keeps the best for the next
// call. Samples/4 are drawn (at least 1) in runs of hdRun adjacent slots,
// Samples in all are rated.
func (p *HitDensity) rank(n int) {
	fresh := max(p.cfg.Samples/4, 1)
	c := p.pool[:0]
	for _, k := range p.pool {
		if int(k.idx) < n {
			c = append(c, hdCand{p.rate(int(k.idx)), k.idx})
		}
	}
	kept := len(c)
	for len(c) < kept+fresh {
		j := p.rng.IntN(n)
		for k := range min(hdRun, kept+fresh-len(c)) {
			i := (j + k) % n
			c = append(c, hdCand{p.rate(i), int32(i)})
		}
	}
	for i := 1; i < len(c); i++ { // insertion sort: the kept part is nearly sorted
		x := c[i]
		k := i
		for ; k > 0 && p.less(x, c[k-1]); k-- {
			c[k] = c[k-1]
		}
		c[k] = x
	}
	c = dedupCands(c)
	p.pool = c[:min(len(c), p.cfg.Samples-fresh)]
}

// dedupCands drops repeated slots from c, sorted by less, where equal
// slots are adjacent.
func dedupCands(c []hdCand) []hdCand {
	out := c[:min(len(c), 1)]
	for _, x := range c[len(out):] {
		if x.idx != out[len(out)-1].idx {
			out = append(out, x)
		}
	}
	return out
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
