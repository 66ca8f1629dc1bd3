package lab

// regret is the lab's regret_aware. Every access counts toward the page's
// frequency and multiplies its regret (if it has any) by Decay; an access
// gap <= Horizon steps after the page's last eviction from any tier adds
// (Horizon-gap+1)/Horizon. The victim has the lowest
//
//	FreqWeight*frequency + RecencyWeight*last/max(step,1) + Weight*regret
//
// where last is the step of the page's last access (-1 never). State is
// kept for every page ever seen, as in the lab.
type regret struct {
	labHooks
	sp        Spec
	freq      []int
	last      []int
	evictedAt []int // -1: no eviction since the last access
	score     []float64
	hasScore  []bool // the lab keeps a regret entry only once regret was added
}

func newRegret(sp Spec, n int) *regret {
	return &regret{sp: sp, freq: make([]int, n), last: filled(n, -1), evictedAt: filled(n, -1),
		score: make([]float64, n), hasScore: make([]bool, n)}
}

func (p *regret) access(page, step int) {
	p.freq[page]++
	p.last[page] = step
	if p.hasScore[page] {
		p.score[page] *= p.sp.Decay
	}
	ev := p.evictedAt[page]
	if ev < 0 {
		return
	}
	p.evictedAt[page] = -1
	if gap := step - ev; gap <= p.sp.Horizon {
		p.score[page] += float64(p.sp.Horizon-gap+1) / float64(p.sp.Horizon)
		p.hasScore[page] = true
	}
}

func (p *regret) inserted(int, int)      {}
func (p *regret) evicted(page, step int) { p.evictedAt[page] = step }
func (p *regret) victim(_ int, cands []int, step int) int {
	return argmin(cands, func(pg int) float64 {
		f := float64(p.sp.FreqWeight * float64(p.freq[pg]))
		r := float64(p.sp.Weight * p.score[pg])
		return float64(f+recencyTerm(p.sp.RecencyWeight, p.last[pg], step)) + r
	})
}
