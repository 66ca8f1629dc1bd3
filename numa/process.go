package numa

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a handle on a running process: a pidfd plus the start time
// read from /proc/PID/stat. The pidfd keeps naming the same process even if
// its PID is recycled, and while the pidfd reports the process alive its
// PID cannot be reused, so checks made through a Process never act on an
// unrelated process that inherited the PID.
//
// A Process is safe for concurrent use except Close, which must not race
// with other methods.
type Process struct {
	pid      int
	fd       int
	start    uint64
	comm     string
	procRoot string
	shared   *sharedFD // the pidfd's share count when a ProcessTable gave the handle out
}

// OpenProcess opens a handle on process pid. It fails with ErrProcessGone
// if there is no such process, ErrNotSupported if the kernel lacks
// pidfd_open(2) (Linux < 5.3).
func OpenProcess(pid int) (*Process, error) {
	return openProcess(DefaultProcRoot, pid)
}

// AttachProcess opens a handle on pid and checks that it is the process
// recorded earlier with the given start time (Process.StartTime). A
// different start time means the PID now names another process: the error
// wraps ErrPIDReused.
func AttachProcess(pid int, startTime uint64) (*Process, error) {
	p, err := openProcess(DefaultProcRoot, pid)
	if err != nil {
		return nil, err
	}
	return p.startedAt(startTime)
}

// startedAt returns p if it started at startTime, else closes it and
// returns an error wrapping ErrPIDReused.
func (p *Process) startedAt(startTime uint64) (*Process, error) {
	if p.start != startTime {
		p.Close()
		return nil, fmt.Errorf("pid %d started at tick %d, recorded %d: %w", p.pid, p.start, startTime, ErrPIDReused)
	}
	return p, nil
}

func openProcess(procRoot string, pid int) (*Process, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: not a process ID: %w", pid, ErrProcessGone)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("pidfd_open(%d): %w", pid, decodePidfdErrno(err))
	}
	return newProcess(procRoot, pid, fd)
}

// newProcess makes a Process of pidfd fd of process pid, reading its
// start time; it closes fd if it fails.
func newProcess(procRoot string, pid, fd int) (*Process, error) {
	p := &Process{pid: pid, fd: fd, procRoot: procRoot}
	st, err := ReadStat(procRoot, pid)
	if err != nil {
		p.Close()
		return nil, err
	}
	// The stat we read belongs to the pidfd's process only if that process
	// was still alive after the read: otherwise the PID may have moved on.
	if p.Exited() {
		p.Close()
		return nil, fmt.Errorf("pid %d exited while being opened: %w", pid, ErrProcessGone)
	}
	p.start, p.comm = st.StartTime, st.Comm
	return p, nil
}

// PID returns the process ID.
func (p *Process) PID() int { return p.pid }

// StartTime returns the process's start time in clock ticks after boot
// (/proc/PID/stat field 22). Record it with the PID to re-attach later
// with AttachProcess.
func (p *Process) StartTime() uint64 { return p.start }

// Comm returns the command name read when the handle was opened.
func (p *Process) Comm() string { return p.comm }

// Exited reports whether the process has exited (it may still be an
// unreaped zombie). A closed handle counts as exited: it no longer vouches
// for its PID (and poll(2) ignores a pidfd of -1). It does not block.
func (p *Process) Exited() bool {
	if p.fd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// A closed or invalid pidfd (POLLNVAL) counts as gone.
		return err != nil || (n > 0 && fds[0].Revents != 0)
	}
}

// Wait blocks until the process exits (nil) or ctx is done (ctx.Err()).
func (p *Process) Wait(ctx context.Context) error {
	for {
		if p.Exited() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		timeout := 100 * time.Millisecond
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
			timeout = max(time.Until(dl), time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(timeout/time.Millisecond)); err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("waiting for pid %d: %w", p.pid, err)
		}
	}
}

// Check verifies that the handle is open and still names a live process.
// It returns an error wrapping ErrProcessGone otherwise. It polls the
// pidfd and reads nothing from /proc: the start time was checked against
// /proc/PID/stat when the handle was opened, with the pidfd alive after
// the read, and while the pidfd shows its process alive the PID cannot
// name another one. (A daemon checks every region's process each epoch;
// under emulation a read of /proc/PID/stat costs as much as a poll of a
// hundred pidfds.)
func (p *Process) Check() error {
	return p.alive()
}

// alive returns ErrProcessGone (wrapped) if the process has exited or
// the handle was closed.
func (p *Process) alive() error {
	if p.fd < 0 {
		return fmt.Errorf("pid %d: process handle closed: %w", p.pid, ErrProcessGone)
	}
	if p.Exited() {
		return fmt.Errorf("pid %d: %w", p.pid, ErrProcessGone)
	}
	return nil
}

// Maps reads the process's memory mappings.
func (p *Process) Maps() (Maps, error) {
	if err := p.alive(); err != nil {
		return nil, err
	}
	return ReadMaps(p.procRoot, p.pid)
}

// Close releases the pidfd: a handle from a ProcessTable releases its
// share, and the pidfd closes with the process's last handle. Closing a
// handle again does nothing.
func (p *Process) Close() error {
	if p.fd < 0 {
		return nil
	}
	fd := p.fd
	p.fd = -1
	if p.shared != nil {
		return p.shared.release(fd)
	}
	return unix.Close(fd)
}

// decodePidfdErrno maps the errnos of pidfd_open(2), called with a pid > 0
// and no flags, to sentinels. Besides ESRCH (no such PID), the kernel
// answers ENOENT (6.9 and later) or EINVAL (5.3 to 6.8) when the PID
// exists but names no thread-group leader: a thread ID, or a process whose
// leader is being reaped. Neither is a process kvtier can act on, so all
// three are ErrProcessGone.
func decodePidfdErrno(err error) error {
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL):
		return fmt.Errorf("%w (%v: no process with that ID; a thread ID or a process being reaped)", ErrProcessGone, err)
	}
	return decodeProcErrno(err)
}

// decodeProcErrno maps errnos of process-directed syscalls to sentinels.
func decodeProcErrno(err error) error {
	switch {
	case errors.Is(err, unix.ESRCH):
		return fmt.Errorf("%w (%v)", ErrProcessGone, err)
	case errors.Is(err, unix.ENOSYS):
		return fmt.Errorf("%w (%v)", ErrNotSupported, err)
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("%w (%v)", ErrPermission, err)
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE):
		return fmt.Errorf("%w: %w", ErrNoFiles, err)
	}
	return err
}
