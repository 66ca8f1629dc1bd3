package numa

import (
	"sync"

	"golang.org/x/sys/unix"
)

// ProcessTable hands out handles on processes that share one pidfd per
// process: however many handles are open on a process, it costs one file
// descriptor, closed with the last of them. Each handle is closed on its
// own (Process.Close), as one from OpenProcess is. The zero value is
// ready to use and reads /proc.
//
// A shared pidfd is given out again only while it reports its process
// alive: while it does, the PID cannot name another process. Once the
// process has exited, a new handle on the PID opens a new pidfd, and the
// old one stays open for the handles that hold it until they close.
type ProcessTable struct {
	ProcRoot string // where procfs is mounted; "" is /proc

	mu   sync.Mutex
	open map[int]*Process // by PID: the handle copied for each share
}

// sharedFD counts the open handles on one pidfd of a ProcessTable.
type sharedFD struct {
	t    *ProcessTable
	pid  int
	refs int // guarded by t.mu
}

// Open returns a handle on process pid, sharing the pidfd of the
// process's other open handles from t; it fails as OpenProcess does.
func (t *ProcessTable) Open(pid int) (*Process, error) {
	t.mu.Lock()
	p := t.shareLocked(pid)
	t.mu.Unlock()
	if p != nil {
		return p, nil
	}
	root := t.ProcRoot
	if root == "" {
		root = DefaultProcRoot
	}
	// Opened without the lock: it reads /proc.
	p, err := openProcess(root, pid)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if q := t.shareLocked(pid); q != nil { // opened meanwhile by another caller
		p.Close()
		return q, nil
	}
	if t.open == nil {
		t.open = map[int]*Process{}
	}
	p.shared = &sharedFD{t: t, pid: pid}
	t.open[pid] = p
	return t.shareLocked(pid), nil
}

// Attach is AttachProcess through t: a handle on pid, which must be the
// process with the given start time (else ErrPIDReused, wrapped).
func (t *ProcessTable) Attach(pid int, startTime uint64) (*Process, error) {
	p, err := t.Open(pid)
	if err != nil {
		return nil, err
	}
	return p.startedAt(startTime)
}

// Len is the number of pidfds t holds open for processes that are alive
// (those of exited processes, still held by handles, are not counted).
func (t *ProcessTable) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.open)
}

// shareLocked returns one more handle on pid's shared pidfd, or nil when
// t holds none for a live process.
func (t *ProcessTable) shareLocked(pid int) *Process {
	p := t.open[pid]
	if p == nil {
		return nil
	}
	if p.Exited() {
		// The PID may be reused from now on: the next Open opens anew.
		delete(t.open, pid)
		return nil
	}
	p.shared.refs++
	q := *p
	return &q
}

// release drops one handle's share of fd, closing fd with the last.
func (s *sharedFD) release(fd int) error {
	t := s.t
	t.mu.Lock()
	defer t.mu.Unlock()
	s.refs--
	if s.refs > 0 {
		return nil
	}
	if p := t.open[s.pid]; p != nil && p.shared == s {
		delete(t.open, s.pid)
	}
	return unix.Close(fd)
}
