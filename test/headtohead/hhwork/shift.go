package main

import (
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// shifting reads set A for t1, set B for t2 and A again for t3, with the
// sampler following the set being read.
func (w *work) shifting() {
	pa := newPlacement(w.a.pageList(w.sets.A))
	pb := newPlacement(w.a.pageList(w.sets.B))
	for _, ph := range []struct {
		name, set string
		p         *placement
		blocks    []int
		d         time.Duration
	}{
		{"A1", "A", pa, w.sets.A, w.cfg.t1},
		{"B", "B", pb, w.sets.B, w.cfg.t2},
		{"A2", "A", pa, w.sets.A, w.cfg.t3},
	} {
		if ph.d <= 0 {
			continue
		}
		w.smp.set(ph.p, ph.name)
		start, mig := w.smp.now(), migrated()
		logf("phase %s: reading set %s (%d blocks) for %s", ph.name, ph.set, len(ph.blocks), ph.d)
		passes := w.readFor(ph.blocks, ph.d, nil)
		w.rep.Phases = append(w.rep.Phases, result.Phase{Name: ph.name, Set: ph.set,
			Start: start, End: w.smp.now(), Passes: passes, Migrated: since(mig)})
	}
	w.smp.set(nil, "")
}
