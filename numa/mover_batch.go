package numa

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// batch handles one chunk of a move: query, budget, move, account. Every
// page of the chunk ends up in exactly one of out's counters. A non-nil
// error stops the move (the caller skips the remaining chunks).
func (e *epoch) batch(mv *Move, class Class, chunk []uintptr, out *Outcome) error {
	if err := e.ctx.Err(); err != nil {
		out.Skipped += len(chunk)
		return fmt.Errorf("moving pages of pid %d: %w", mv.Proc.PID(), err)
	}
	if err := e.admit(mv); err != nil {
		out.Skipped += len(chunk)
		return err
	}
	if err := mv.Proc.alive(); err != nil {
		return e.processGone(mv, err, len(chunk), out)
	}
	status := make([]PageStatus, len(chunk))
	e.rep.Calls++
	if err := QueryPages(mv.Proc.PID(), chunk, status, len(chunk)); err != nil {
		return e.processGone(mv, err, len(chunk), out)
	}
	todo := e.sortQueried(mv.Node, chunk, status, out)
	if len(todo) == 0 {
		return nil
	}
	n, stop := e.allowance(len(todo))
	if n < len(todo) && (e.used > 0 || out.Moved > 0) {
		// Moving part of a chunk splits its block across the tiers, and
		// a block moved in part is not moved: a promotion so cut puts
		// pages in the fast tier that its budget does not count. Leave
		// the chunk whole for a later epoch, unless nothing moved yet
		// (a block larger than one epoch's budget still progresses).
		n = 0
	}
	out.Skipped += len(todo) - n
	todo = todo[:n]
	if len(todo) > 0 {
		if err := e.move(mv, class, todo, out); err != nil {
			return err
		}
	}
	return stop
}

// sortQueried accounts the pages that need no move and returns the rest.
func (e *epoch) sortQueried(node int, chunk []uintptr, status []PageStatus, out *Outcome) []uintptr {
	var todo []uintptr
	for i, s := range status {
		on, ok := s.OnNode()
		switch {
		case ok && on == node:
			out.Already++
		case ok:
			todo = append(todo, chunk[i])
		case s.Errno() == unix.ENOENT:
			out.NotPresent++
		default:
			e.fail(out, s.String(), 1)
		}
	}
	return todo
}

// allowance trims want pages to the epoch and bandwidth budgets. It
// returns how many may move now and a non-nil error if the move must stop
// after them.
func (e *epoch) allowance(want int) (int, error) {
	var stop error
	if lim := e.m.cfg.Budgets.PagesPerEpoch; lim > 0 {
		left := lim - e.used
		if left < want {
			want = max(left, 0)
			stop = fmt.Errorf("%d pages per epoch moved: %w", lim, ErrBudget)
		}
	}
	ps := int64(PageSize)
	if can := int(e.m.bucket.affordable(e.ctx, int64(want)*ps) / ps); can < want {
		want = can
		stop = fmt.Errorf("%d bytes/s allows no more before the deadline: %w",
			e.m.cfg.Budgets.BytesPerSec, ErrBudget)
	}
	return want, stop
}

// move migrates todo (all off the destination) and accounts the result.
func (e *epoch) move(mv *Move, class Class, todo []uintptr, out *Outcome) error {
	bytes := int64(len(todo)) * int64(PageSize)
	if err := e.m.bucket.wait(e.ctx, bytes); err != nil {
		out.Skipped += len(todo)
		return err
	}
	e.used += len(todo)
	status := make([]PageStatus, len(todo))
	// The wait may have been long: MovePages checks the process again
	// before each call, so no call names the PID of an exited process.
	opts := MoveOptions{Batch: len(todo), MoveAll: e.m.cfg.MoveAll,
		BusyRetries: e.m.cfg.BusyRetries, BusyBackoff: e.m.cfg.BusyBackoff, proc: mv.Proc}
	st, err := MovePages(e.ctx, mv.Proc.PID(), todo, mv.Node, status, opts)
	e.rep.Calls += st.Calls
	out.Moved += st.OnTarget
	for name, n := range st.Errnos {
		e.fail(out, name, n)
	}
	skipped := len(todo) - st.OnTarget - st.Failed
	out.Skipped += skipped
	e.m.bucket.refund(int64(len(todo)-st.OnTarget) * int64(PageSize))
	moved := uint64(st.OnTarget) * uint64(PageSize)
	e.rep.BytesMoved += moved
	switch class {
	case ClassFast:
		e.rep.PagesToFast += st.OnTarget
	case ClassSlow:
		e.rep.PagesToSlow += st.OnTarget
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNoMemory):
		e.nodeFull(mv.Node, class)
	case errors.Is(err, ErrProcessGone):
		e.gone[mv.Proc] = err
	}
	return err
}

// processGone records a failed query or liveness check and skips the chunk.
func (e *epoch) processGone(mv *Move, err error, chunk int, out *Outcome) error {
	out.Skipped += chunk
	if errors.Is(err, ErrProcessGone) {
		e.gone[mv.Proc] = err
	}
	return err
}

func (e *epoch) nodeFull(node int, class Class) {
	if !e.full[node] {
		e.full[node] = true
		e.rep.FullNodes = append(e.rep.FullNodes, node)
	}
	if class == ClassFast {
		e.rep.PromotionsStopped = true
	}
}

// fail counts n pages that failed with errno.
func (e *epoch) fail(out *Outcome, errno string, n int) {
	out.Failed += n
	if out.Errnos == nil {
		out.Errnos = map[string]int{}
	}
	out.Errnos[errno] += n
	e.rep.Errnos[errno] += n
}
