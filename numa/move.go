package numa

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// MoveOptions tune MovePages. The zero value is usable.
type MoveOptions struct {
	// Batch is the number of pages per move_pages(2) call (0: DefaultBatch).
	Batch int
	// MoveAll sets MPOL_MF_MOVE_ALL: also move pages shared with other
	// processes. Off by default: only MPOL_MF_MOVE is used, and shared
	// pages fail with EACCES.
	MoveAll bool
	// BusyRetries is how often pages that failed with EBUSY are retried
	// (0: 3; negative: never).
	BusyRetries int
	// BusyBackoff is the first wait before an EBUSY retry; it doubles on
	// each retry (0: 1ms).
	BusyBackoff time.Duration

	// proc, when set, is checked before every move_pages(2) call: a
	// process that exited (its PID free for reuse) is never named.
	proc *Process
}

func (o MoveOptions) withDefaults() MoveOptions {
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.BusyRetries == 0 {
		o.BusyRetries = 3
	}
	if o.BusyBackoff <= 0 {
		o.BusyBackoff = time.Millisecond
	}
	return o
}

func (o MoveOptions) flags() int {
	if o.MoveAll {
		return unix.MPOL_MF_MOVE_ALL
	}
	return unix.MPOL_MF_MOVE
}

// MoveStats sums up a MovePages call.
type MoveStats struct {
	// OnTarget counts pages on the target node afterwards: moved, or
	// already there (move_pages(2) does not tell the two apart; query
	// first to know).
	OnTarget int `json:"on_target"`
	// Failed counts pages that are not on the target, by errno name in
	// Errnos (ENOENT: not present, EBUSY after the retries, ...).
	Failed int            `json:"failed"`
	Errnos map[string]int `json:"errnos,omitempty"`
	// Calls counts move_pages(2) calls, retries included.
	Calls int `json:"calls"`
	// BusyRetries counts pages retried after EBUSY.
	BusyRetries int `json:"busy_retries"`
}

// NotMoved is the Errnos key of pages the kernel left on another node
// without reporting an error.
const NotMoved = "not_moved"

func (s *MoveStats) addErrno(name string) {
	if s.Errnos == nil {
		s.Errnos = map[string]int{}
	}
	s.Errnos[name]++
}

// MovePages moves the pages at the given addresses of process pid (0: the
// caller) to node with move_pages(2), opts.Batch pages per call, and
// writes each page's outcome to status (as long as pages). Pages that fail
// with EBUSY are retried with exponential backoff.
//
// A partial failure moves what it can: per-page failures are counted in
// the stats and the work goes on. It stops early, leaving later pages
// NotAttempted, when ctx is done, when the call itself fails (ESRCH:
// ErrProcessGone; ENODEV: ErrNoNode; EINVAL: ErrProcessGone for a process
// without an address space, ErrNoNode otherwise; EPERM: ErrPermission) or
// when a page fails with ENOMEM because the target node is full
// (ErrNoMemory).
//
// A transparent huge page is moved whole when any of its base pages is
// named; each of its base pages reports its own status.
func MovePages(ctx context.Context, pid int, pages []uintptr, node int, status []PageStatus, opts MoveOptions) (MoveStats, error) {
	var st MoveStats
	if len(status) != len(pages) {
		return st, fmt.Errorf("moving pages: %d status slots for %d pages", len(status), len(pages))
	}
	if node < 0 {
		return st, fmt.Errorf("moving pages of pid %d to node %d: %w", pid, node, ErrNoNode)
	}
	for i := range status {
		status[i] = NotAttempted
	}
	opts = opts.withDefaults()
	nodes := make([]int32, min(opts.Batch, len(pages)))
	for i := range nodes {
		nodes[i] = int32(node)
	}
	for off := 0; off < len(pages); off += opts.Batch {
		if err := ctx.Err(); err != nil {
			return st, fmt.Errorf("moving pages of pid %d: %w", pid, err)
		}
		end := min(off+opts.Batch, len(pages))
		if err := moveBatch(ctx, pid, pages[off:end], nodes, node, status[off:end], opts, &st); err != nil {
			return st, fmt.Errorf("moving pages of pid %d to node %d: %w", pid, node, err)
		}
	}
	return st, nil
}

// moveBatch moves one batch, retries its EBUSY pages and tallies it.
func moveBatch(ctx context.Context, pid int, pages []uintptr, nodes []int32, node int,
	status []PageStatus, opts MoveOptions, st *MoveStats) error {
	if err := opts.live(); err != nil {
		return err
	}
	st.Calls++
	if _, err := movePages(pid, pages, nodes[:len(pages)], status, opts.flags()); err != nil {
		tally(status, node, st)
		return decodeMoveErrno(err, pid, node)
	}
	backoff := opts.BusyBackoff
	for retry := 0; retry < opts.BusyRetries; retry++ {
		busy := busyPages(pages, status)
		if len(busy) == 0 {
			break
		}
		if err := sleepCtx(ctx, backoff); err != nil {
			break // the EBUSY pages stay failed; the caller sees ctx next
		}
		backoff *= 2
		if err := opts.live(); err != nil {
			tally(status, node, st)
			return err
		}
		st.BusyRetries += len(busy)
		addrs := make([]uintptr, len(busy))
		res := make([]PageStatus, len(busy))
		for i, idx := range busy {
			addrs[i] = pages[idx]
			res[i] = NotAttempted
		}
		st.Calls++
		_, err := movePages(pid, addrs, nodes[:len(addrs)], res, opts.flags())
		for i, idx := range busy {
			if res[i] != NotAttempted {
				status[idx] = res[i]
			}
		}
		if err != nil {
			tally(status, node, st)
			return decodeMoveErrno(err, pid, node)
		}
	}
	st.Calls += confirmOnTarget(pid, pages, status, node)
	if tally(status, node, st) {
		return fmt.Errorf("a page could not be allocated on node %d: %w", node, ErrNoMemory)
	}
	return nil
}

// confirmOnTarget queries again the pages of a batch that reported
// neither the target node nor NotAttempted, and records the target for
// those found there. A transparent huge page moves whole when its first
// base page is named, and the kernel may report its other base pages EBUSY
// (their folio was already isolated for that move) although they are on
// the target afterwards: without this, such a block counted as not moved.
// Pages elsewhere keep their status. It returns the calls made (0 or 1).
func confirmOnTarget(pid int, pages []uintptr, status []PageStatus, node int) int {
	var idx []int
	for i, s := range status {
		if s != NotAttempted && int(s) != node {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0
	}
	addrs := make([]uintptr, len(idx))
	res := make([]PageStatus, len(idx))
	for i, j := range idx {
		addrs[i] = pages[j]
		res[i] = NotAttempted
	}
	// A failed query (the process is gone) leaves the statuses as they are.
	_, _ = movePages(pid, addrs, nil, res, 0)
	for i, j := range idx {
		if int(res[i]) == node {
			status[j] = res[i]
		}
	}
	return 1
}

// live checks opts.proc, if any, before a call names its PID.
func (o MoveOptions) live() error {
	if o.proc == nil {
		return nil
	}
	return o.proc.alive()
}

// busyPages returns the indexes of pages whose status is EBUSY.
func busyPages(pages []uintptr, status []PageStatus) []int {
	var busy []int
	for i := range pages {
		if status[i].Errno() == unix.EBUSY {
			busy = append(busy, i)
		}
	}
	return busy
}

// tally adds a batch's statuses to st and reports whether any page failed
// with ENOMEM.
func tally(status []PageStatus, node int, st *MoveStats) (noMem bool) {
	for _, s := range status {
		switch {
		case s == NotAttempted:
		case int(s) == node:
			st.OnTarget++
		case s >= 0:
			// On another node without an error: the kernel left it.
			st.Failed++
			st.addErrno(NotMoved)
		default:
			st.Failed++
			st.addErrno(errnoName(s.Errno()))
			noMem = noMem || s.Errno() == unix.ENOMEM
		}
	}
	return noMem
}

// sleepCtx sleeps for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
