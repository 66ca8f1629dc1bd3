package numa

import (
	"errors"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

func TestDecodePidfdErrno(t *testing.T) {
	tests := []struct {
		errno unix.Errno
		want  error // nil: no sentinel, the errno itself is kept
	}{
		{unix.ESRCH, ErrProcessGone},
		{unix.ENOENT, ErrProcessGone}, // a PID without a thread-group leader (Linux >= 6.9)
		{unix.EINVAL, ErrProcessGone}, // the same before 6.9
		{unix.ENOSYS, ErrNotSupported},
		{unix.EPERM, ErrPermission},
		{unix.EACCES, ErrPermission},
		{unix.EMFILE, ErrNoFiles}, // this process's RLIMIT_NOFILE, not the target's fault
		{unix.ENFILE, ErrNoFiles},
		{unix.E2BIG, nil},
	}
	for _, tt := range tests {
		t.Run(tt.errno.Error(), func(t *testing.T) {
			err := decodePidfdErrno(tt.errno)
			for _, s := range []error{ErrProcessGone, ErrNotSupported, ErrPermission, ErrNoFiles} {
				if got := errors.Is(err, s); got != (s == tt.want) {
					t.Errorf("decodePidfdErrno(%v) = %v: errors.Is(%v) = %v", tt.errno, err, s, got)
				}
			}
			if (tt.want == nil || tt.want == ErrNoFiles) && !errors.Is(err, tt.errno) {
				t.Errorf("decodePidfdErrno(%v) = %v: the errno is lost", tt.errno, err)
			}
		})
	}
}

// TestOpenProcessThreadID opens a handle on a thread of this process that
// is not its leader: pidfd_open refuses it (ENOENT since Linux 6.9, EINVAL
// before), and OpenProcess reports ErrProcessGone, as for a PID that names
// no process.
func TestOpenProcessThreadID(t *testing.T) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	tid := 0
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n != os.Getpid() {
			tid = n
			break
		}
	}
	if tid == 0 {
		t.Fatalf("/proc/self/task lists no thread besides the leader %d (the Go runtime always runs several)", os.Getpid())
	}
	p, err := OpenProcess(tid)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks pidfd_open(2): %v", err)
	}
	if err == nil {
		p.Close()
		t.Fatalf("OpenProcess(%d), a thread of pid %d, succeeded", tid, os.Getpid())
	}
	if !errors.Is(err, ErrProcessGone) {
		t.Fatalf("OpenProcess(%d), a thread of pid %d: %v, want ErrProcessGone", tid, os.Getpid(), err)
	}
	if errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenProcess error %v still matches os.ErrNotExist: callers should need only ErrProcessGone", err)
	}
}
