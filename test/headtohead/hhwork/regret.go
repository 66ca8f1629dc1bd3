package main

import (
	"fmt"
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// gapInfo is what finishRegret needs of one gap once the series is in.
type gapInfo struct {
	name       string
	start, len float64
	burstEnd   float64
}

// regret reads set C alone (warm-up), then set D until half of C's share
// on node 0 is gone or the cool-off's limit passes, then revisits C in
// short bursts with gaps of D between them. A system that learns from
// the regret of demoting C keeps C on node 0 through the later gaps; one
// that does not demotes it again in every gap.
func (w *work) regret() {
	c, d := w.sets.C, w.sets.D
	if len(d) == 0 {
		d = w.sets.B
	}
	pc := newPlacement(w.a.pageList(c)) // the sampler's
	qc := newPlacement(w.a.pageList(c)) // this goroutine's
	r := &result.Regret{Blocks: c, FillBlocks: len(d)}
	mig := migrated()
	w.gaps = nil
	r.StartShare = w.share(qc)
	w.smp.set(pc, "R-warm")
	logf("regret: warming set C (%d blocks) for %s", len(c), w.cfg.warm)
	w.readFor(c, w.cfg.warm, nil)
	r.WarmShare = w.share(qc)
	r.FillStartShare = w.share(newPlacement(w.a.pageList(d)))
	w.smp.set(pc, "R-cool")
	t0 := w.smp.now()
	w.readFor(d, w.cfg.cool, w.demotedHalf(qc, r.WarmShare))
	r.CoolSeconds = w.smp.now() - t0
	r.CoolShare = w.share(qc)
	logf("regret: C share %.2f after warm-up, %.2f after %.1fs of cool-off", r.WarmShare, r.CoolShare, r.CoolSeconds)
	for i := range w.cfg.cycles {
		at := w.share(qc)
		w.smp.set(pc, fmt.Sprintf("R-burst%d", i+1))
		w.readFor(c, w.cfg.burst, nil)
		end := w.share(qc)
		name := fmt.Sprintf("R-gap%d", i+1)
		w.smp.set(pc, name)
		gs := w.smp.now()
		w.readFor(d, w.cfg.gap, nil)
		w.gaps = append(w.gaps, gapInfo{name: name, start: gs, len: w.smp.now() - gs, burstEnd: end})
		r.Cycles = append(r.Cycles, result.Cycle{AtRevisit: at, BurstEnd: end})
		logf("regret: revisit %d: C share %.2f at the revisit, %.2f after the burst", i+1, at, end)
	}
	w.smp.set(nil, "")
	r.Migrated = since(mig)
	w.rep.Regret = r
}

// demotedHalf returns a stop condition for the cool-off: true once C's
// share fell to half of warm, checked at most every half second.
func (w *work) demotedHalf(q *placement, warm float64) func() bool {
	var last time.Time
	return func() bool {
		if time.Since(last) < 500*time.Millisecond {
			return false
		}
		last = time.Now()
		return w.share(q) <= warm/2
	}
}

// share queries q now; an error is noted and reads as 0.
func (w *work) share(q *placement) float64 {
	s, err := q.node0Share()
	w.note(err)
	return s
}

// finishRegret fills the gap figures from the series and summarizes.
func (w *work) finishRegret() {
	r := w.rep.Regret
	if r == nil {
		return
	}
	for i, g := range w.gaps {
		r.Cycles[i].GapMean, r.Cycles[i].Held = result.GapFigures(w.rep.Series, g.name, g.start, g.len, g.burstEnd)
		r.Cycles[i].Gap = g.len
	}
	r.Summarize()
}
