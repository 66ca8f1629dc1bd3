package policy

// regret_tiered's density ranking: a victim choice by the hit density of a
// block's class at its age, learnt from the reuse distances of every read
// the policy hears (LHD's measure, Beckmann, Chen and Cidon, NSDI'18, with
// the reuse distance distribution in place of LHD's lifetimes in one
// cache, so that every tier's instance learns the same distribution).

// rtDensityRefresh is the fewest observations (reuse distances and
// expiries) after which the density tables are recomputed: every
// rtDensityRefresh while few were seen, then every 1/16 of those seen, up
// to a quarter of the window, so that a refresh, O(window), costs O(1)
// per observation once the model has learnt.
const rtDensityRefresh = 16

// rtDensityScan is the number of blocks the density ranking looks at from
// each end of each class list (a full scan for lists up to twice as long):
// the youngest and the oldest of each class, where its density is lowest
// when the density falls or rises with age; a bounded scan keeps a victim
// O(1).
const rtDensityScan = 16

// rtDensity holds, per class (0 cold, 1 hot), a histogram of reuse
// distances in accesses up to the record window (the last bin counts the
// blocks not read again within it) and the hit density per age derived
// from it and from the blocks still waiting for their next read (their
// age a says only D > a: a censored observation, so the distribution is
// the Kaplan-Meier estimate; the tracked blocks are counted by the step
// of their last read as events come, so a refresh is O(window)): a block
// of age a expects hits(a) = P(a < D <= a+M | D > a) reads within the
// next M accesses (M,
// the span, is a multiple of the capacity in blocks) and occupies the
// cache for E[min(D, a+M) - a | D > a] accesses until then; its density
// is their ratio. Ages above the window have density 0.
type rtDensity struct {
	hist [2][]float64
	// ring[c][t mod len] counts the tracked blocks of class c last read at
	// step t, for the last len steps; beyond[c] those read before.
	ring    [2][]float64
	beyond  [2]float64
	live    [2][]float64 // blocks waiting for their next read, by age (refresh's scratch)
	dens    [2][]float64
	mass    []float64 // the estimated distribution (refresh's scratch)
	s0, s1  []float64 // scratch of densityTable
	pending int       // observations since the last refresh
	seen    int       // observations
	// floor is the least density at returns (0 before the first refresh):
	// a walk that found it can stop, nothing after is lower
	floor float64
}

func newRTDensity(window int) *rtDensity {
	d := &rtDensity{}
	for c := range d.hist {
		d.hist[c] = make([]float64, window+2)
		d.live[c] = make([]float64, window+2)
		d.ring[c] = make([]float64, window+1)
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
	d.seen++
}

// tick moves the blocks last read len(ring) steps before now out of the
// ring, into beyond: call it once for every step now, before any other
// event of the step.
func (d *rtDensity) tick(now int64) {
	for c := range d.ring {
		slot := &d.ring[c][now%int64(len(d.ring[c]))]
		d.beyond[c] += *slot
		*slot = 0
	}
}

// track adds (by +1) or removes (by -1) a tracked block of class hot last
// read at step last, now being the current step.
func (d *rtDensity) track(hot bool, last, now int64, by float64) {
	c := rtClassIndex(hot)
	if n := int64(len(d.ring[c])); now-last < n {
		d.ring[c][last%n] += by
	} else {
		d.beyond[c] += by
	}
}

// refresh recomputes the density tables for span M from the histograms
// and the tracked blocks' ages at step now when due (rtDensityRefresh):
// O(window).
func (d *rtDensity) refresh(span int, now int64) {
	if d.pending < max(rtDensityRefresh, min(d.seen/16, len(d.mass)/4)) {
		return
	}
	d.pending = 0
	for c := range d.hist {
		d.fillLive(c, now)
		kaplanMeier(d.hist[c], d.live[c], d.mass)
		densityTable(d.mass, d.dens[c], d.s0, d.s1, max(span, 1))
	}
	d.floor = 0 // the density of ages past the tables
	for _, t := range d.dens {
		for _, v := range t[:len(t)-1] {
			d.floor = min(d.floor, v) // NaN stays: no density is then known to be least
		}
	}
}

// fillLive sets live[c][age] to the tracked blocks of class c last read
// age steps before now (ring[c][(now-age) mod len], walked down from now's
// slot without a division per age) and its last entry to beyond[c].
func (d *rtDensity) fillLive(c int, now int64) {
	ring, live := d.ring[c], d.live[c]
	n := int64(len(ring))
	j := now % n // the slot of age 0
	for age := range n {
		live[age] = 0
		if now-age >= 0 {
			live[age] = ring[j]
		}
		if j--; j < 0 {
			j = n - 1
		}
	}
	live[n] = d.beyond[c]
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
		// No reuse at x leaves surv as it is: skip the division (its
		// chain through surv is most of a refresh's time).
		m := 0.0
		if h := hist[x]; h != 0 && atRisk > 0 {
			m = surv * h / atRisk
		}
		mass[x] = m
		surv -= m
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
	a0, a1 := s0[0], s1[0] // the sums run in registers, not through s0 and s1
	for x, v := range h {
		a0 = a0 + v
		a1 = a1 + v*float64(x)
		s0[x+1], s1[x+1] = a0, a1
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

// observeRead counts r's reuse distance and takes r out of the tracked
// blocks' ages before its read updates it.
func (p *RegretTiered) observeRead(r *rtRec) {
	if p.dens != nil && r.last >= 0 {
		p.dens.observe(p.densityHot(r), p.clock-r.last)
		p.dens.track(p.densityHot(r), r.last, p.clock, -1)
	}
}

// observedRead puts r back among the tracked blocks' ages after its read.
func (p *RegretTiered) observedRead(r *rtRec) {
	if p.dens != nil {
		p.dens.track(p.densityHot(r), r.last, p.clock, 1)
	}
}

// observeExpiry counts a record dropped unread within the window.
func (p *RegretTiered) observeExpiry(r *rtRec) {
	if p.dens != nil && r.last >= 0 {
		p.dens.observe(p.densityHot(r), p.window()+1)
		p.dens.track(p.densityHot(r), r.last, p.clock, -1)
	}
}

// observeForget takes a forgotten record out of the tracked blocks' ages.
func (p *RegretTiered) observeForget(r *rtRec) {
	if p.dens != nil && r.last >= 0 {
		p.dens.track(p.densityHot(r), r.last, p.clock, -1)
	}
}

// densityVictim returns the block of c with the lowest density among
// those it looks at (rtDensityScan from each end of each class list, the
// cold list first, each from its tail), never the block just read while
// another is there; nil when c is empty. Ties go to the first looked at.
func (p *RegretTiered) densityVictim(c *rtClassList) *rtRec {
	p.dens.refresh(int(p.cfg.Span*float64(p.cap.get())+0.5), p.clock)
	skip := uint32(0) // record indices start at 1
	if p.lastRead != nil && c.len() > 1 {
		if r := p.tab.get(p.lastRead); r != nil {
			skip = r.idx
		}
	}
	s := rtScan{p: p, skip: skip}
	if !s.ends(&c.cold) {
		s.ends(&c.hot)
	}
	if s.best == 0 {
		return nil
	}
	return p.tab.rec(s.best)
}

// rtScan is densityVictim's walk: the least density seen and its record.
type rtScan struct {
	p     *RegretTiered
	skip  uint32
	best  uint32 // 0: none yet
	bestD float64
}

// ends looks at up to rtDensityScan records from each end of l, each
// record once, the tail's oldest first, then the head's newest first; it
// reports whether the walk found the least density there is (floor).
func (s *rtScan) ends(l *rtList) bool { return l.ends.scan(s, l.len()) }

// consider rates r and keeps it when it is below the least seen so far;
// it reports whether that is the least density there is, so that no
// record after can replace it.
func (s *rtScan) consider(r *rtRec) bool {
	if r.idx == s.skip {
		return false
	}
	p := s.p
	if d := p.dens.at(p.densityHot(r), p.clock-r.last); s.best == 0 || d < s.bestD {
		s.best, s.bestD = r.idx, d
	}
	return s.bestD <= p.dens.floor
}
