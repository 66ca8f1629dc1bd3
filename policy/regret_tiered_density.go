package policy

// regret_tiered's density ranking: a victim choice by the hit density of a
// block's class at its age, learnt from the reuse distances of every read
// the policy hears (LHD's measure, Beckmann, Chen and Cidon, NSDI'18, with
// the reuse distance distribution in place of LHD's lifetimes in one
// cache, so that every tier's instance learns the same distribution).

// rtDensityRefresh is the number of reads after which the density table
// is recomputed from the histograms.
const rtDensityRefresh = 16

// rtDensityScan is the number of blocks the density ranking looks at from
// each end of each class list (a full scan for lists up to twice as long).
const rtDensityScan = 32

// rtDensity holds, per class (0 cold, 1 hot), a histogram of reuse
// distances in accesses up to the record window (the last bin counts the
// blocks not read again within it) and the hit density per age derived
// from it and from the blocks still waiting for their next read (their
// age a says only D > a: a censored observation, so the distribution is
// the Kaplan-Meier estimate): a block of age a expects
// hits(a) = P(a < D <= a+M | D > a) reads within the next M accesses (M,
// the span, is a multiple of the capacity in blocks) and occupies the
// cache for E[min(D, a+M) - a | D > a] accesses until then; its density
// is their ratio. Ages above the window have density 0.
type rtDensity struct {
	hist    [2][]float64
	live    [2][]float64 // blocks waiting for their next read, by age (refresh's scratch)
	dens    [2][]float64
	mass    []float64 // the estimated distribution (refresh's scratch)
	s0, s1  []float64 // scratch of densityTable
	pending int       // reads since the last refresh
}

func newRTDensity(window int) *rtDensity {
	d := &rtDensity{}
	for c := range d.hist {
		d.hist[c] = make([]float64, window+2)
		d.live[c] = make([]float64, window+2)
		d.dens[c] = make([]float64, window+2)
	}
	d.mass = make([]float64, window+2)
	d.s0, d.s1 = make([]float64, window+3), make([]float64, window+3)
	return d
}

// observe counts one reuse distance (or, with gap above the window, a
// block not read again within it) of class hot.
func (d *rtDensity) observe(hot bool, gap int64) {
	h := d.hist[rtClassIndex(hot)]
	h[min(gap, int64(len(h)-1))]++
	d.pending++
}

// due reports whether the tables are to be recomputed: every
// rtDensityRefresh reads, or every tracked/8 when more blocks are
// tracked, so that the scan of the live blocks is O(1) per read
// amortised.
func (d *rtDensity) due(tracked int) bool { return d.pending >= max(rtDensityRefresh, tracked/8) }

// refresh recomputes the density tables for span M from the histograms
// and the live blocks' ages, which d.live holds (refresh clears it).
func (d *rtDensity) refresh(span int) {
	d.pending = 0
	for c := range d.hist {
		kaplanMeier(d.hist[c], d.live[c], d.mass)
		densityTable(d.mass, d.dens[c], d.s0, d.s1, max(span, 1))
		clear(d.live[c])
	}
}

// kaplanMeier fills mass with the distribution of the reuse distance from
// the distances seen (hist, its last bin: none within the window) and the
// ages of the blocks still waiting (live): at each distance x the hazard
// is hist[x] over the blocks that reached x; mass's last bin is the
// probability of no reuse within the window.
func kaplanMeier(hist, live, mass []float64) {
	n := len(hist)
	atRisk := 0.0
	for x := range n {
		atRisk += hist[x] + live[x]
	}
	surv := 1.0
	for x := range n - 1 {
		mass[x] = 0
		if atRisk > 0 {
			mass[x] = surv * hist[x] / atRisk
		}
		surv -= mass[x]
		atRisk -= hist[x] + live[x]
	}
	mass[n-1] = max(surv, 0)
}

// densityTable fills dens[a] with the hit density at age a from the
// reuse distribution h (its last bin: no reuse within the window), by
// prefix sums of the mass and of the distance-weighted mass (s0 and s1,
// len(h)+1 each, hold the sums over [0, x)).
func densityTable(h, dens, s0, s1 []float64, span int) {
	n := len(h)
	for x, v := range h {
		s0[x+1] = s0[x] + v
		s1[x+1] = s1[x] + v*float64(x)
	}
	total := s0[n]
	for a := range dens {
		lo, hi := min(a+1, n-1), min(a+span+1, n-1) // reuses in [a+1, a+span]; h[n-1] is no reuse
		hits := s0[hi] - s0[lo]
		life := s1[hi] - s1[lo] - float64(a)*hits + float64(span)*(total-s0[hi])
		dens[a] = hits / (life + 1e-9)
	}
}

// at returns the density of a block of class hot at age a.
func (d *rtDensity) at(hot bool, age int64) float64 {
	t := d.dens[rtClassIndex(hot)]
	if age < 0 || age >= int64(len(t)-1) {
		return 0
	}
	return t[age]
}

func rtClassIndex(hot bool) int {
	if hot {
		return 1
	}
	return 0
}

// densityHot is the class the density model keeps a block in: hot as of
// its last read.
func (p *RegretTiered) densityHot(r *rtRec) bool {
	return r.hotAt >= 0 && r.last-r.hotAt <= int64(p.cfg.Memory)
}

// observeRead counts r's reuse distance before its read updates it.
func (p *RegretTiered) observeRead(r *rtRec) {
	if p.dens != nil && r.last >= 0 {
		p.dens.observe(p.densityHot(r), p.clock-r.last)
	}
}

// observeExpiry counts a record dropped unread within the window.
func (p *RegretTiered) observeExpiry(r *rtRec) {
	if p.dens != nil && r.last >= 0 {
		p.dens.observe(p.densityHot(r), p.window()+1)
	}
}

// refreshDensity recomputes the density tables when due, counting every
// block tracked (resident, simulated or loose) as waiting at its age.
func (p *RegretTiered) refreshDensity() {
	d := p.dens
	if !d.due(p.tab.n) {
		return
	}
	for ci, chunk := range p.tab.chunks {
		for j := range chunk {
			r := &chunk[j]
			if r.last < 0 || (ci == 0 && j == 0) || !p.tab.ra.rec(r.idx).held {
				continue
			}
			live := d.live[rtClassIndex(p.densityHot(r))]
			live[min(p.clock-r.last, int64(len(live)-1))]++
		}
	}
	d.refresh(int(p.cfg.Span*float64(p.cap.get()) + 0.5))
}

// densityVictim returns the block of c with the lowest density among
// those it looks at (rtDensityScan from each end of each class list),
// never the block just read while another is there; nil when c is empty.
func (p *RegretTiered) densityVictim(c *rtClassList) *rtRec {
	p.refreshDensity()
	var best *rtRec
	bestD := 0.0
	consider := func(r *rtRec) {
		if b := p.tab.block(r.idx); b == p.lastRead && c.len() > 1 {
			return
		}
		if dd := p.dens.at(p.densityHot(r), p.clock-r.last); best == nil || dd < bestD {
			best, bestD = r, dd
		}
	}
	for _, l := range []*rtList{&c.cold, &c.hot} {
		p.scanEnds(l, consider)
	}
	return best
}

// scanEnds calls f on up to rtDensityScan records from each end of l,
// each record once, oldest first.
func (p *RegretTiered) scanEnds(l *rtList, f func(*rtRec)) {
	t := p.tab
	if l.len() <= 2*rtDensityScan {
		for i := l.tail; i != 0; i = l.link(t, i).prev {
			f(t.rec(i))
		}
		return
	}
	i := l.tail
	for k := 0; k < rtDensityScan; k++ {
		f(t.rec(i))
		i = l.link(t, i).prev
	}
	i = l.head
	for k := 0; k < rtDensityScan; k++ {
		f(t.rec(i))
		i = l.link(t, i).next
	}
}
