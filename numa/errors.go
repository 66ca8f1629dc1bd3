package numa

import "errors"

// Sentinel errors. Functions wrap them with context; test with errors.Is.
var (
	// ErrNotSupported: the kernel lacks the feature (syscall, advice, file).
	ErrNotSupported = errors.New("not supported by this kernel")
	// ErrProcessGone: the process exited (or never existed).
	ErrProcessGone = errors.New("process is gone")
	// ErrPIDReused: the PID now names a different process than the one
	// recorded (its start time differs).
	ErrPIDReused = errors.New("pid reused by another process")
	// ErrNoNode: the NUMA node does not exist or is not online.
	ErrNoNode = errors.New("no such NUMA node")
	// ErrPermission: the caller lacks the privilege (CAP_SYS_NICE,
	// ptrace access, root).
	ErrPermission = errors.New("permission denied")
	// ErrNoMemory: the target node has no memory left for the move.
	ErrNoMemory = errors.New("target node out of memory")
	// ErrBadRange: an address range is empty, unaligned or inverted.
	ErrBadRange = errors.New("bad address range")
	// ErrBudget: a migration budget (pages per epoch, or bytes per
	// second before the deadline) is spent; the work was not attempted.
	ErrBudget = errors.New("migration budget exhausted")
	// ErrParse: a sysfs or procfs file could not be parsed; the wrapping
	// error names the file.
	ErrParse = errors.New("parse error")
	// ErrNoFiles: the caller is out of file descriptors (EMFILE: its
	// RLIMIT_NOFILE; ENFILE: the system's). Nothing is said about the
	// process the call was about. See OutOfFiles.
	ErrNoFiles = errors.New("out of file descriptors")
)
