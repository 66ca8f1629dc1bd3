package main

import (
	"fmt"
	"os"
	"time"

	"github.com/kvtier/kvtier/test/headtohead/result"
)

// work is one run of the workload.
type work struct {
	cfg  config
	a    *arena
	reg  *registrar
	rep  *result.Report
	sets blockSets
	smp  *sampler
	gaps []gapInfo // the regret phase's gaps
}

// run fills the arena, registers it, runs the phases the flags ask for
// and verifies every block. The report is returned even on error.
func run(cfg config) (*result.Report, error) {
	a, err := newArena(cfg.arenaMiB<<20, cfg.blockKiB<<10, cfg.noHuge)
	if err != nil {
		return nil, err
	}
	w := &work{cfg: cfg, a: a, reg: newRegistrar(cfg.daemon, cfg.hints),
		rep: &result.Report{PID: os.Getpid(), ArenaMiB: cfg.arenaMiB, BlockKiB: cfg.blockKiB,
			Blocks: a.blocks(), Seed: cfg.seed, Hints: cfg.hints, Mismatches: []int{}}}
	defer w.reg.close()
	w.sets = chooseSets(cfg.seed, a.blocks(), cfg.hot, cfg.regretBlocks, cfg.otherBlocks)
	w.rep.SetA, w.rep.SetB = w.sets.A, w.sets.B
	if err := w.prepare(); err != nil {
		return w.rep, err
	}
	w.smp = newSampler(time.Now())
	go w.smp.run(cfg.sample)
	err = w.phases()
	w.rep.CPU = cpuNow()
	pts, errs := w.smp.close()
	w.rep.Series = pts
	w.rep.Errors = append(w.rep.Errors, errs...)
	for i := range w.rep.Phases {
		w.rep.Phases[i] = result.SummarizePhase(w.rep.Phases[i], pts)
	}
	w.finishRegret()
	w.rep.HintBlocks = w.reg.sent
	w.rep.Mismatches = a.verify()
	w.rep.Verified = a.blocks()
	logf("verified %d blocks, %d mismatches, %d live mismatches", a.blocks(), len(w.rep.Mismatches), w.rep.LiveMismatches)
	return w.rep, err
}

// prepare fills the arena (first touch places it), records where it
// landed and registers it with the daemon.
func (w *work) prepare() error {
	start := time.Now()
	w.a.fill()
	w.rep.FillSecs = time.Since(start).Seconds()
	all := make([]int, w.a.blocks())
	for i := range all {
		all[i] = i
	}
	share, err := newPlacement(w.a.pageList(all)).node0Share()
	if err != nil {
		return fmt.Errorf("placement after the fill: %w", err)
	}
	w.rep.FirstTouchShare = share
	logf("filled %d blocks in %.1fs, %.2f of the pages on node 0", w.a.blocks(), w.rep.FillSecs, share)
	if err := w.reg.register(w.a); err != nil {
		return err
	}
	w.rep.Registered = w.reg.region != 0
	return nil
}

// phases runs the shifting hot sets, the regret phase and the replay.
func (w *work) phases() error {
	if w.cfg.t1 > 0 {
		w.shifting()
	}
	if w.cfg.cycles > 0 && len(w.sets.C) > 0 {
		w.regret()
	}
	if w.cfg.trace != "" {
		if err := w.replay(); err != nil {
			return err
		}
	}
	return w.note(w.reg.flush())
}

// readFor reads blocks round and round for d, or until stop (may be nil)
// says so after a block; it returns the complete passes.
func (w *work) readFor(blocks []int, d time.Duration, stop func() bool) int {
	end := time.Now().Add(d)
	passes := 0
	for time.Now().Before(end) {
		for _, b := range blocks {
			w.readBlock(b)
			if time.Now().After(end) || (stop != nil && stop()) {
				return passes
			}
		}
		passes++
	}
	return passes
}

// readBlock reads one block, checks it and notes the hint.
func (w *work) readBlock(b int) {
	if !w.a.read(b) {
		w.rep.LiveMismatches++
	}
	w.note(w.reg.read(b))
}

// note keeps a non-fatal error for the report (the first 20).
func (w *work) note(err error) error {
	if err != nil && len(w.rep.Errors) < 20 {
		w.rep.Errors = append(w.rep.Errors, err.Error())
		logf("%v", err)
	}
	return nil
}

// cpuNow sums the CPU time of the kvtier daemon and of the kdamond threads
// from /proc now, while the daemon's kdamond for this process still runs
// (it stops when the process exits).
func cpuNow() *result.CPU {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var all []byte
	for _, e := range ents {
		if c := e.Name()[0]; c < '0' || c > '9' {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			all = append(all, b...)
		}
	}
	var c result.CPU
	c.Daemon, c.Kdamond = result.CPUSeconds(all)
	return &c
}
