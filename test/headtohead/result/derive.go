package result

// Target is the hot share a phase counts as reached.
const Target = 0.8

// SummarizePhase fills the share figures of p from the series samples
// named p.Name.
func SummarizePhase(p Phase, series []Point) Phase {
	var sum float64
	n := 0
	p.To80 = nil
	for _, pt := range series {
		if pt.Phase != p.Name {
			continue
		}
		if n == 0 {
			p.StartShare = pt.Share
		}
		sum += pt.Share
		n++
		p.EndShare = pt.Share
		if p.To80 == nil && pt.Share >= Target {
			d := max(0, pt.T-p.Start)
			p.To80 = &d
		}
	}
	if n > 0 {
		p.MeanShare = sum / float64(n)
	}
	return p
}

// GapFigures returns the mean share over the samples of the gap named
// name and how long after gapStart the share stayed at or above half of
// burstEnd (the gap's whole length gap when it never fell below).
func GapFigures(series []Point, name string, gapStart, gap, burstEnd float64) (mean, held float64) {
	var sum float64
	n := 0
	held = gap
	fell := false
	for _, pt := range series {
		if pt.Phase != name {
			continue
		}
		sum += pt.Share
		n++
		if !fell && pt.Share < burstEnd/2 {
			held, fell = max(0, pt.T-gapStart), true
		}
	}
	if n > 0 {
		mean = sum / float64(n)
	}
	return mean, held
}

// Summarize fills the regret phase's aggregate figures from its cycles:
// RevisitShare over the cycles after the first (all of them when there
// is one), GapShare over all, HeldShare as held time over gap time.
func (r *Regret) Summarize() {
	if len(r.Cycles) == 0 {
		return
	}
	later := r.Cycles
	if len(later) > 1 {
		later = later[1:]
	}
	var rev, gapMean, held, gap float64
	for _, c := range later {
		rev += c.AtRevisit
	}
	for _, c := range r.Cycles {
		gapMean += c.GapMean
		held += c.Held
		gap += c.Gap
	}
	r.RevisitShare = rev / float64(len(later))
	r.GapShare = gapMean / float64(len(r.Cycles))
	if gap > 0 {
		r.HeldShare = held / gap
	}
}

// SecondsTo returns the seconds from start to the first sample of phase
// at or above share, and false when the share never got there.
func SecondsTo(series []Point, phase string, start, share float64) (float64, bool) {
	for _, pt := range series {
		if pt.Phase == phase && pt.Share >= share {
			return max(0, pt.T-start), true
		}
	}
	return 0, false
}
