package main

import (
	"fmt"
	"strconv"
	"strings"
)

// parseBlocks parses a block list such as "0-7,12,20-23" for an arena of n
// blocks. An optional "TENANT:" prefix names the arena ("b:0-3"); without
// it the first arena is meant.
func parseBlocks(spec string) (tenant string, blocks []int, err error) {
	if t, rest, ok := strings.Cut(spec, ":"); ok {
		tenant, spec = t, rest
	}
	for _, part := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b := a
		var errB error
		if isRange {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil || a < 0 || b < a {
			return "", nil, fmt.Errorf("block list %q: %q is not N or N-M with 0 <= N <= M", spec, part)
		}
		for i := a; i <= b; i++ {
			blocks = append(blocks, i)
		}
	}
	return tenant, blocks, nil
}

// arenaFor returns the arena of tenant ("" is the first) and checks that
// every block is inside it.
func (w *workload) arenaFor(tenant string, blocks []int) (*arena, error) {
	var a *arena
	for _, x := range w.arenas {
		if tenant == "" || x.tenant == tenant {
			a = x
			break
		}
	}
	if a == nil {
		return nil, fmt.Errorf("no arena of tenant %q", tenant)
	}
	for _, i := range blocks {
		if i >= a.blocks() {
			return nil, fmt.Errorf("block %d is outside arena %s of %d blocks", i, a.tenant, a.blocks())
		}
	}
	return a, nil
}

// touch reads blocks of one arena rounds times (cfg.interval apart),
// reporting every read through the hint function and the daemon's API.
func (w *workload) touch(spec string, rounds int) (PhaseReport, error) {
	tenant, blocks, err := parseBlocks(spec)
	if err != nil {
		return PhaseReport{}, err
	}
	a, err := w.arenaFor(tenant, blocks)
	if err != nil {
		return PhaseReport{}, err
	}
	saved := w.cfg.rounds
	w.cfg.rounds = rounds
	p, err := w.readRounds(a, blocks)
	w.cfg.rounds = saved
	p.Name = "touch " + spec
	if err != nil {
		err = fmt.Errorf("touch %s: %w", spec, err)
	}
	return p, err
}

// complete marks blocks of one arena think_complete.
func (w *workload) complete(spec string) error {
	tenant, blocks, err := parseBlocks(spec)
	if err != nil {
		return err
	}
	a, err := w.arenaFor(tenant, blocks)
	if err != nil {
		return err
	}
	for _, i := range blocks {
		if err := w.reg.thinkComplete(a, i, i+1); err != nil {
			return err
		}
	}
	return nil
}

// reregister registers every arena again (after the daemon restarted and
// lost its regions, or the first time with -defer-register).
func (w *workload) reregister() error {
	w.rep.Registered = w.reg.enabled()
	for _, a := range w.arenas {
		a.regionID = 0
		if err := w.reg.register(a, "think_active", "normal", w.cfg.pinnedBlocks); err != nil {
			return err
		}
	}
	return nil
}
