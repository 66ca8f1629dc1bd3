package numa

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Advice is a madvise(2) hint.
type Advice int

// Hints kvtier gives. process_madvise(2) accepts only some of them (COLD,
// PAGEOUT, WILLNEED, COLLAPSE on recent kernels); the others fail there
// with ErrNotSupported.
const (
	// AdviseCold deactivates the pages: reclaim takes them first.
	AdviseCold Advice = unix.MADV_COLD
	// AdvisePageout reclaims the pages now: anonymous pages are swapped
	// out (or stay if there is no swap), clean file pages dropped. It does
	// NOT demote them to a slower NUMA node; use MovePages for that.
	AdvisePageout Advice = unix.MADV_PAGEOUT
	// AdviseWillNeed asks for read-ahead (swap-in of anonymous pages).
	AdviseWillNeed Advice = unix.MADV_WILLNEED
	// AdviseHugePage allows transparent huge pages in the range
	// (madvise only).
	AdviseHugePage Advice = unix.MADV_HUGEPAGE
	// AdviseNoHugePage forbids transparent huge pages (madvise only).
	AdviseNoHugePage Advice = unix.MADV_NOHUGEPAGE
	// AdviseCollapse collapses the range into huge pages now (Linux 6.1+).
	AdviseCollapse Advice = unix.MADV_COLLAPSE
)

var adviceNames = map[Advice]string{
	AdviseCold: "MADV_COLD", AdvisePageout: "MADV_PAGEOUT", AdviseWillNeed: "MADV_WILLNEED",
	AdviseHugePage: "MADV_HUGEPAGE", AdviseNoHugePage: "MADV_NOHUGEPAGE", AdviseCollapse: "MADV_COLLAPSE",
}

// String returns the advice's name, such as "MADV_COLD".
func (a Advice) String() string {
	if n, ok := adviceNames[a]; ok {
		return n
	}
	return fmt.Sprintf("advice(%d)", int(a))
}

// Madvise gives advice for the caller's own memory [addr, addr+length).
// addr must be page-aligned. An advice the kernel does not know (EINVAL
// for a valid range) wraps ErrNotSupported.
func Madvise(addr uintptr, length uint64, advice Advice) error {
	if addr%uintptr(PageSize) != 0 || length == 0 {
		return fmt.Errorf("%v of %#x+%d: %w", advice, addr, length, ErrBadRange)
	}
	_, _, e := unix.Syscall(unix.SYS_MADVISE, addr, uintptr(length), uintptr(advice))
	if e != 0 {
		return fmt.Errorf("%v of %#x+%d: %w", advice, addr, length, decodeAdviseErrno(e, advice))
	}
	return nil
}

// maxIovecs is how many ranges one process_madvise(2) call takes
// (UIO_MAXIOV).
const maxIovecs = 1024

// Range is an address range [Start, Start+Len) in some process.
type Range struct {
	Start uintptr
	Len   uint64
}

// Advise gives advice for ranges of the process's memory with
// process_madvise(2) on its pidfd, so the advice can never reach another
// process that reused the PID. It returns the bytes advised. The kernel
// may stop part-way (it returns the bytes done so far); Advise then goes
// on from where it stopped, and on an error returns the bytes done before
// it with the error. ErrNotSupported: the kernel lacks process_madvise
// (Linux < 5.10) or this advice for it.
func (p *Process) Advise(ranges []Range, advice Advice) (uint64, error) {
	var done uint64
	iov := make([]iovec, 0, len(ranges))
	for _, r := range ranges {
		if r.Start%uintptr(PageSize) != 0 || r.Len == 0 {
			return 0, fmt.Errorf("%v of pid %d at %#x+%d: %w", advice, p.pid, r.Start, r.Len, ErrBadRange)
		}
		iov = append(iov, iovec{base: r.Start, len: uintptr(r.Len)})
	}
	for len(iov) > 0 {
		if err := p.alive(); err != nil {
			return done, err
		}
		n := min(len(iov), maxIovecs)
		r, _, e := unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(p.fd),
			uintptr(unsafe.Pointer(&iov[0])), uintptr(n), uintptr(advice), 0, 0)
		if e != 0 {
			return done, fmt.Errorf("%v of pid %d: %w", advice, p.pid, decodeAdviseErrno(e, advice))
		}
		if r == 0 {
			return done, fmt.Errorf("%v of pid %d: kernel advised 0 bytes of %d ranges", advice, p.pid, n)
		}
		done += uint64(r)
		iov = skipIovecs(iov, uint64(r))
	}
	return done, nil
}

// iovec is struct iovec holding an address of another process, which Go
// must not see as a pointer.
type iovec struct {
	base uintptr
	len  uintptr
}

// skipIovecs drops n bytes from the front of iov.
func skipIovecs(iov []iovec, n uint64) []iovec {
	for len(iov) > 0 && n >= uint64(iov[0].len) {
		n -= uint64(iov[0].len)
		iov = iov[1:]
	}
	if len(iov) > 0 && n > 0 {
		iov[0].base += uintptr(n)
		iov[0].len -= uintptr(n)
	}
	return iov
}

func decodeAdviseErrno(e unix.Errno, advice Advice) error {
	switch e {
	case unix.EINVAL:
		return fmt.Errorf("%w: %v is unknown to this kernel or not allowed here (%v)", ErrNotSupported, advice, e)
	case unix.ENOMEM:
		return fmt.Errorf("%w (%v: range not fully mapped)", ErrBadRange, e)
	case unix.ESRCH:
		return fmt.Errorf("%w (%v)", ErrProcessGone, e)
	}
	if errors.Is(e, unix.ENOSYS) {
		return fmt.Errorf("%w (%v)", ErrNotSupported, e)
	}
	return decodeProcErrno(e)
}
