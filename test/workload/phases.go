package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// config is the workload's flags.
type config struct {
	arenaMiB, blockKiB, tenant2MiB int
	noHuge                         bool
	hotFrac                        float64
	rounds                         int
	interval                       time.Duration
	burstBlocks                    int
	pinnedBlocks                   int
	daemon                         string
	tenant                         string
	deferRegister                  bool
}

// workload holds the arenas and the running report.
type workload struct {
	cfg    config
	arenas []*arena
	reg    *registrar
	rep    Report
	// hot is the first tenant's hot set (block indices).
	hot []int
}

func newWorkload(cfg config) *workload {
	return &workload{cfg: cfg, reg: newRegistrar(cfg.daemon), rep: Report{PID: os.Getpid()}}
}

// setup allocates, fills and registers the first tenant's arena.
func (w *workload) setup() error {
	a, err := w.addArena(w.cfg.tenant, w.cfg.arenaMiB)
	if err != nil {
		return err
	}
	n := max(1, int(float64(a.blocks())*w.cfg.hotFrac))
	w.hot = make([]int, 0, n)
	for i := range n {
		w.hot = append(w.hot, i)
	}
	return nil
}

func (w *workload) addArena(tenant string, mib int) (*arena, error) {
	a, err := newArena(tenant, mib<<20, w.cfg.blockKiB<<10, w.cfg.noHuge)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	a.fill(1)
	if len(w.arenas) == 0 {
		w.rep.FillMBps = float64(a.length()) / (1 << 20) / time.Since(start).Seconds()
	}
	w.arenas = append(w.arenas, a)
	if w.cfg.deferRegister && len(w.arenas) == 1 {
		return a, nil
	}
	if err := w.reg.register(a, "think_active", "normal", w.cfg.pinnedBlocks); err != nil {
		return nil, err
	}
	w.rep.Registered = w.reg.enabled()
	return a, nil
}

// phaseNames are the phases -phases accepts, in their usual order.
var phaseNames = []string{"hot", "burst", "class", "tenant2"}

// runPhase runs one phase by name and verifies everything afterwards.
func (w *workload) runPhase(name string) (PhaseReport, error) {
	start := time.Now()
	var p PhaseReport
	var err error
	switch name {
	case "hot":
		p, err = w.readRounds(w.arenas[0], w.hot)
	case "burst":
		p, err = w.burst()
	case "class":
		p, err = w.classChange()
	case "tenant2":
		p, err = w.tenant2()
	default:
		return p, fmt.Errorf("unknown phase %q (want one of %s)", name, strings.Join(phaseNames, ", "))
	}
	p.Name = name
	p.Seconds = time.Since(start).Seconds()
	w.rep.Phases = append(w.rep.Phases, p)
	w.verifyAll()
	return p, err
}

// readRounds reads blocks of a for cfg.rounds rounds, cfg.interval apart.
func (w *workload) readRounds(a *arena, blocks []int) (PhaseReport, error) {
	var p PhaseReport
	for r := range w.cfg.rounds {
		if r > 0 {
			time.Sleep(w.cfg.interval)
		}
		w.readOnce(a, blocks, &p)
		if err := w.reg.hints(a, toU64(blocks)); err != nil {
			return p, err
		}
	}
	for _, i := range blocks {
		p.Blocks = append(p.Blocks, fmt.Sprintf("%s:%d", a.tenant, i))
	}
	return p, nil
}

func (w *workload) readOnce(a *arena, blocks []int, p *PhaseReport) {
	for _, i := range blocks {
		if !a.read(i) {
			p.Mismatches++
		}
		p.Reads++
		p.ReadMB += float64(a.blockSize) / (1 << 20)
	}
}

// burst revisits blocks of the first tenant that are currently off node 0
// (demoted), up to cfg.burstBlocks of them, in quick succession.
func (w *workload) burst() (PhaseReport, error) {
	a := w.arenas[0]
	nodes, err := a.pageNodes()
	if err != nil {
		return PhaseReport{}, fmt.Errorf("burst: finding demoted blocks: %w", err)
	}
	var demoted []int
	for i, n := range nodes {
		if n > 0 && len(demoted) < w.cfg.burstBlocks {
			demoted = append(demoted, i)
		}
	}
	if len(demoted) == 0 {
		return PhaseReport{Note: "no block is off node 0; nothing to revisit"}, nil
	}
	p, err := w.readRounds(a, demoted)
	p.OffFast = len(demoted)
	return p, err
}

// classChange marks the first tenant's current hot set think_complete and
// moves the hot set to the blocks after it, which become think_active work.
func (w *workload) classChange() (PhaseReport, error) {
	a := w.arenas[0]
	old := w.hot
	if err := w.reg.thinkComplete(a, old[0], old[len(old)-1]+1); err != nil {
		return PhaseReport{}, err
	}
	next := make([]int, 0, len(old))
	for _, i := range old {
		next = append(next, (i+len(old))%a.blocks())
	}
	w.hot = next
	p, err := w.readRounds(a, next)
	p.Note = fmt.Sprintf("blocks %d-%d think_complete; hot set now %d-%d", old[0], old[len(old)-1], next[0], next[len(next)-1])
	return p, err
}

// tenant2 allocates the second tenant's arena and reads its hot set.
func (w *workload) tenant2() (PhaseReport, error) {
	a, err := w.addArena("b", w.cfg.tenant2MiB)
	if err != nil {
		return PhaseReport{}, err
	}
	n := max(1, int(float64(a.blocks())*w.cfg.hotFrac))
	hot := make([]int, n)
	for i := range hot {
		hot[i] = i
	}
	return w.readRounds(a, hot)
}

// verifyAll checks every block of every arena.
func (w *workload) verifyAll() VerifyReport {
	start := time.Now()
	v := &w.rep.Verify
	v.Passes++
	v.Blocks = 0
	for _, a := range w.arenas {
		v.Blocks += a.blocks()
		for _, i := range a.verify() {
			v.Mismatched = append(v.Mismatched, fmt.Sprintf("%s:%d (generation %d)", a.tenant, i, a.gen))
		}
	}
	v.Seconds = time.Since(start).Seconds()
	return *v
}

// finish verifies once more and completes the report.
func (w *workload) finish(errs ...error) Report {
	w.verifyAll()
	w.rep.Arenas = w.info()
	w.rep.HintCalls, w.rep.HintBytes, w.rep.HintLast = hintCalls, hintBytes, uint64(hintLast)
	for _, err := range errs {
		if err != nil {
			w.rep.Errors = append(w.rep.Errors, err.Error())
		}
	}
	mism := 0
	for _, p := range w.rep.Phases {
		mism += p.Mismatches
	}
	w.rep.OK = len(w.rep.Errors) == 0 && len(w.rep.Verify.Mismatched) == 0 && mism == 0
	if w.rep.Phases == nil {
		w.rep.Phases = []PhaseReport{}
	}
	if w.rep.Verify.Mismatched == nil {
		w.rep.Verify.Mismatched = []string{}
	}
	return w.rep
}

func toU64(s []int) []uint64 {
	out := make([]uint64, len(s))
	for i, v := range s {
		out[i] = uint64(v)
	}
	return out
}
