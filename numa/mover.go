package numa

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Move is one entry of a Plan: put some pages of one process on one node.
type Move struct {
	// Proc is the process whose memory moves. The Mover never closes it.
	Proc *Process
	// Addr and Len give the range [Addr, Addr+Len) in bytes; it is widened
	// to whole base pages. Used when Pages is nil.
	Addr uintptr
	Len  uint64
	// Pages lists base-page addresses explicitly; it overrides Addr and Len.
	Pages []uintptr
	// Node is the destination NUMA node.
	Node int
}

// Plan is the moves of one epoch, executed in order: put each demotion
// before the promotion that needs its room (the daemon follows
// plan.Plan.Order).
type Plan []Move

// Budgets bound what a Mover does. Zero fields are unlimited or defaulted.
type Budgets struct {
	// BytesPerSec is the migration bandwidth (a token bucket); 0 is
	// unlimited.
	BytesPerSec int64
	// Burst is the token bucket's depth in bytes (0: a tenth of a second
	// of BytesPerSec, and at least one call's worth of pages).
	Burst int64
	// PagesPerCall is the batch size of one move_pages(2) call
	// (0: DefaultBatch). It also bounds how far past the deadline one
	// call in flight can run.
	PagesPerCall int
	// PagesPerEpoch caps the pages a Run attempts to migrate (0: no cap).
	// Pages already on their destination or not present do not count.
	PagesPerEpoch int
}

// MoverConfig configures a Mover.
type MoverConfig struct {
	Budgets Budgets
	// MoveAll also moves pages shared with other processes
	// (MPOL_MF_MOVE_ALL). Off unless configured.
	MoveAll bool
	// BusyRetries and BusyBackoff: see MoveOptions.
	BusyRetries int
	BusyBackoff time.Duration
}

// Outcome is what happened to one Move of a Plan. Its page counts add up
// to Pages: Moved + Already + NotPresent + Failed + Skipped.
type Outcome struct {
	Pages      int `json:"pages"`       // base pages in the move
	Moved      int `json:"moved"`       // migrated to the destination by this run
	Already    int `json:"already"`     // already on the destination
	NotPresent int `json:"not_present"` // not faulted in (ENOENT): nothing to move
	Failed     int `json:"failed"`      // could not be moved; by errno name in Errnos
	Skipped    int `json:"skipped"`     // not attempted; Err says why
	// Errnos counts failed pages by errno name ("EBUSY", "EFAULT", ...).
	Errnos map[string]int `json:"errnos,omitempty"`
	// Err is why pages were skipped: wraps ErrProcessGone, ErrNoNode,
	// ErrNoMemory, ErrBudget, ErrPermission or a context error. Nil when
	// every page was handled.
	Err error `json:"-"`
}

// Report sums up a Run.
type Report struct {
	Outcomes []Outcome     `json:"outcomes"` // one per Move, in plan order
	Elapsed  time.Duration `json:"elapsed_ns"`
	// BytesMoved and BytesPerSec: bytes migrated and the achieved rate
	// over Elapsed.
	BytesMoved  uint64  `json:"bytes_moved"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	// PagesToFast and PagesToSlow count migrated pages by the class of
	// their destination (promotions and demotions).
	PagesToFast int `json:"pages_to_fast"`
	PagesToSlow int `json:"pages_to_slow"`
	// Calls counts move_pages(2) calls, queries included.
	Calls int `json:"calls"`
	// Errnos is the histogram of per-page failures over all moves.
	Errnos map[string]int `json:"errnos"`
	// FullNodes lists nodes that failed a move with ENOMEM; no more moves
	// went to them in this run. PromotionsStopped is set when one of them
	// is fast: then no move went to any fast node afterwards.
	FullNodes         []int `json:"full_nodes,omitempty"`
	PromotionsStopped bool  `json:"promotions_stopped"`
}

// Mover executes plans under budgets. Create it with NewMover; it is safe
// for concurrent use (runs are serialised). The bytes-per-second bucket
// carries over from one Run to the next, and across SetBudgets; the
// per-epoch state does not.
type Mover struct {
	mu     sync.Mutex // held by a Run
	topo   *Topology
	cfg    MoverConfig // Budgets written under mu and bmu
	bucket *bucket

	bmu     sync.Mutex
	pending *Budgets // set by SetBudgets during a Run, applied by the next
}

// NewMover returns a Mover that classifies destinations with topo.
func NewMover(topo *Topology, cfg MoverConfig) (*Mover, error) {
	if topo == nil {
		return nil, errors.New("new mover: no topology")
	}
	b, err := withDefaults(cfg.Budgets)
	if err != nil {
		return nil, fmt.Errorf("new mover: %w", err)
	}
	cfg.Budgets = b
	return &Mover{topo: topo, cfg: cfg, bucket: newBucket(b.BytesPerSec, b.Burst)}, nil
}

// withDefaults checks b and fills in the defaulted fields.
func withDefaults(b Budgets) (Budgets, error) {
	if b.BytesPerSec < 0 || b.Burst < 0 || b.PagesPerCall < 0 || b.PagesPerEpoch < 0 {
		return b, fmt.Errorf("negative budget in %+v", b)
	}
	if b.PagesPerCall == 0 {
		b.PagesPerCall = DefaultBatch
	}
	if b.Burst == 0 {
		b.Burst = max(b.BytesPerSec/10, int64(b.PagesPerCall*PageSize))
	}
	return b, nil
}

// SetBudgets changes the budgets in place (a config reload) without
// blocking: when a Run is in progress it finishes under the old budgets
// and the next Run uses the new ones. The token bucket keeps its state: the
// bytes taken so far stay taken (the balance is capped at the new burst but
// not refilled), so a reload neither grants a fresh burst nor forgets a
// debt, and the new rate applies from the change on. A bucket that was
// unlimited starts full. Zero fields are defaulted as by NewMover; a
// negative one is an error and changes nothing.
func (m *Mover) SetBudgets(b Budgets) error {
	b, err := withDefaults(b)
	if err != nil {
		return fmt.Errorf("setting mover budgets: %w", err)
	}
	m.bmu.Lock()
	m.pending = &b
	m.bmu.Unlock()
	if m.mu.TryLock() {
		m.applyBudgets()
		m.mu.Unlock()
	}
	return nil
}

// Budgets returns the budgets in force, or those set for the next Run.
func (m *Mover) Budgets() Budgets {
	m.bmu.Lock()
	defer m.bmu.Unlock()
	if m.pending != nil {
		return *m.pending
	}
	return m.cfg.Budgets
}

// RunBytes returns the bytes the bytes-per-second budget lets a Run move
// within d when it starts with a full token bucket: the burst plus d's
// worth of the rate (0: no bandwidth limit). The bucket is full when the
// time since the previous Run ended is at least Burst/BytesPerSec, so a
// caller that plans per epoch and sets Burst to one epoch's bytes can plan
// rate x epoch and have all of it executed before a deadline d. The pages
// per epoch budget and the speed of move_pages(2) itself are not included.
func (m *Mover) RunBytes(d time.Duration) int64 {
	b := m.Budgets()
	if b.BytesPerSec <= 0 {
		return 0
	}
	return b.Burst + int64(float64(b.BytesPerSec)*d.Seconds())
}

// applyBudgets installs pending budgets; the caller holds mu.
func (m *Mover) applyBudgets() {
	m.bmu.Lock()
	defer m.bmu.Unlock()
	if m.pending == nil {
		return
	}
	b := *m.pending
	m.pending = nil
	m.cfg.Budgets = b
	m.bucket.reset(b.BytesPerSec, b.Burst, time.Now())
}

// Run executes plan as one epoch: the pages-per-epoch budget and the
// stop-on-ENOMEM state start afresh. Each move's pages are queried first,
// so only pages off their destination are migrated and charged to the
// budgets. Run returns when the plan is done, a budget is spent or ctx is
// done, whichever comes first: it waits for bandwidth only as long as the
// deadline allows. Per-move problems (a gone process, a full node) are
// reported in the outcomes and never stop the other moves.
func (m *Mover) Run(ctx context.Context, plan Plan) *Report {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.applyBudgets()
	e := &epoch{m: m, ctx: ctx, rep: &Report{Outcomes: make([]Outcome, len(plan)), Errnos: map[string]int{}},
		gone: map[*Process]error{}, full: map[int]bool{}}
	start := time.Now()
	for i := range plan {
		e.run(&plan[i], &e.rep.Outcomes[i])
	}
	r := e.rep
	r.Elapsed = time.Since(start)
	if s := r.Elapsed.Seconds(); s > 0 {
		r.BytesPerSec = float64(r.BytesMoved) / s
	}
	return r
}

// epoch is the state of one Run.
type epoch struct {
	m    *Mover
	ctx  context.Context
	rep  *Report
	used int                // pages attempted against PagesPerEpoch
	gone map[*Process]error // processes that ended
	full map[int]bool       // nodes that returned ENOMEM
}

func (e *epoch) run(mv *Move, out *Outcome) {
	pages := mv.Pages
	if pages == nil && mv.Len > 0 {
		var err error
		if pages, err = PagesOf(mv.Addr, mv.Addr+uintptr(mv.Len)); err != nil {
			out.Err = err
			return
		}
	}
	out.Pages = len(pages)
	if len(pages) == 0 {
		out.Err = fmt.Errorf("move to node %d names no pages: %w", mv.Node, ErrBadRange)
		return
	}
	if err := e.admit(mv); err != nil {
		out.Skipped, out.Err = len(pages), err
		return
	}
	class, _ := e.m.topo.ClassOf(mv.Node)
	batch := e.m.cfg.Budgets.PagesPerCall
	for off := 0; off < len(pages); off += batch {
		chunk := pages[off:min(off+batch, len(pages))]
		if err := e.batch(mv, class, chunk, out); err != nil {
			out.Skipped += len(pages) - off - len(chunk)
			out.Err = err
			return
		}
	}
}

// admit checks whether a move may start at all.
func (e *epoch) admit(mv *Move) error {
	switch {
	case mv.Proc == nil:
		return errors.New("move has no process")
	case e.gone[mv.Proc] != nil:
		return e.gone[mv.Proc]
	}
	n, err := e.m.topo.Node(mv.Node)
	if err != nil {
		return err
	}
	if e.full[mv.Node] {
		return fmt.Errorf("node %d was full earlier in this epoch: %w", mv.Node, ErrNoMemory)
	}
	if n.Class == ClassFast && e.rep.PromotionsStopped {
		return fmt.Errorf("promotions stopped for this epoch (a fast node was full): %w", ErrNoMemory)
	}
	return nil
}
