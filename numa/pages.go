package numa

import (
	"errors"
	"fmt"
	"math"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PageSize is the base page size that move_pages(2) works in.
var PageSize = os.Getpagesize()

// DefaultBatch is the number of pages passed to one move_pages(2) call when
// the caller does not say.
const DefaultBatch = 1024

// PageStatus is one page's status as move_pages(2) reports it: the node the
// page is on (>= 0) or a negative errno.
type PageStatus int32

// NotAttempted marks a page that no move_pages(2) call has reported on,
// because the work stopped before reaching it.
const NotAttempted PageStatus = math.MinInt32

// OnNode returns the node holding the page and true, or -1 and false.
func (s PageStatus) OnNode() (int, bool) {
	if s >= 0 {
		return int(s), true
	}
	return -1, false
}

// Errno returns the page's error, or 0 if the page is on a node or was not
// attempted. The usual ones: ENOENT (not present: never touched or swapped
// out), EFAULT (not mapped, or the shared zero page), EBUSY (locked,
// under I/O or a huge page the kernel could not split now), EACCES
// (mapped by several processes and MOVE_ALL not set), ENOMEM (the target
// node is full), EIO, EINVAL (the page cannot be migrated).
func (s PageStatus) Errno() unix.Errno {
	if s >= 0 || s == NotAttempted {
		return 0
	}
	return unix.Errno(-s)
}

// String returns "node N", an errno name such as "ENOENT" or
// "not attempted".
func (s PageStatus) String() string {
	if n, ok := s.OnNode(); ok {
		return fmt.Sprintf("node %d", n)
	}
	if s == NotAttempted {
		return "not attempted"
	}
	return errnoName(s.Errno())
}

// errnoName returns "EBUSY" for unix.EBUSY, or "errno N" if unknown.
func errnoName(e unix.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

// movePages is the raw move_pages(2) call. nodes nil queries. It returns
// the number of pages the kernel could not migrate (>= 0) or an errno.
func movePages(pid int, pages []uintptr, nodes []int32, status []PageStatus, flags int) (int, error) {
	if len(pages) == 0 {
		return 0, nil
	}
	var nodesPtr unsafe.Pointer
	if nodes != nil {
		nodesPtr = unsafe.Pointer(&nodes[0])
	}
	r, _, e := unix.Syscall6(unix.SYS_MOVE_PAGES, uintptr(pid), uintptr(len(pages)),
		uintptr(unsafe.Pointer(&pages[0])), uintptr(nodesPtr),
		uintptr(unsafe.Pointer(&status[0])), uintptr(flags))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// decodeMoveErrno maps a move_pages(2) call's errno to the package's
// sentinels. pid is the process named (0: the caller), node the
// destination (-1 for a query).
func decodeMoveErrno(e error, pid, node int) error {
	switch {
	case errors.Is(e, unix.ENODEV):
		return fmt.Errorf("node %d has no memory or is offline: %w (%v)", node, ErrNoNode, e)
	case errors.Is(e, unix.EINVAL) && (node < 0 || !hasAddressSpace(pid)):
		// The flags and counts are well formed, so EINVAL means either
		// that the process has no memory left (it exited: a zombie, or
		// being torn down) or that the node is beyond MAX_NUMNODES. The
		// kernel looks for the address space first.
		return fmt.Errorf("%w (%v: no address space)", ErrProcessGone, e)
	case errors.Is(e, unix.EINVAL):
		return fmt.Errorf("node %d is out of range: %w (%v)", node, ErrNoNode, e)
	case errors.Is(e, unix.ENOMEM):
		return fmt.Errorf("%w (%v)", ErrNoMemory, e)
	}
	return decodeProcErrno(e)
}

// hasAddressSpace reports whether process pid (0: the caller) still has
// its memory: it exists and is neither a zombie nor dead. Used only to
// explain an error, so a racy answer misnames one error at worst.
func hasAddressSpace(pid int) bool {
	if pid == 0 {
		return true
	}
	st, err := ReadStat(DefaultProcRoot, pid)
	return err == nil && st.State != 'Z' && st.State != 'X' && st.State != 'x'
}

// QueryPages asks where each page in pages (addresses in process pid; 0 is
// the caller) lives, with move_pages(2) in query mode, batch pages per
// call (0: DefaultBatch). status must be as long as pages. On error the
// pages already answered keep their status and the rest are NotAttempted.
func QueryPages(pid int, pages []uintptr, status []PageStatus, batch int) error {
	if len(status) != len(pages) {
		return fmt.Errorf("querying pages: %d status slots for %d pages", len(status), len(pages))
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	for i := range status {
		status[i] = NotAttempted
	}
	for off := 0; off < len(pages); off += batch {
		end := min(off+batch, len(pages))
		// The kernel writes the status of each page it handled, so after a
		// failed call the rest keep NotAttempted.
		if _, err := movePages(pid, pages[off:end], nil, status[off:end], 0); err != nil {
			return fmt.Errorf("querying pages of pid %d: %w", pid, decodeMoveErrno(err, pid, -1))
		}
	}
	return nil
}

// PagesOf returns the base-page addresses covering [start, end): start is
// rounded down and end up to page boundaries. It fails with ErrBadRange if
// end <= start.
func PagesOf(start, end uintptr) ([]uintptr, error) {
	if end <= start {
		return nil, fmt.Errorf("range %#x-%#x: %w", start, end, ErrBadRange)
	}
	ps := uintptr(PageSize)
	first := start &^ (ps - 1)
	n := (end - first + ps - 1) / ps
	pages := make([]uintptr, n)
	for i := range pages {
		pages[i] = first + uintptr(i)*ps
	}
	return pages, nil
}
