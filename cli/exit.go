package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy/trace"
)

// exitCode is the exit code of a command's error: the one the command
// chose (withCode), else ExitUsage for cobra's argument errors, else the
// code of the first sentinel in the chain (see classify).
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if isUsage(err) {
		return ExitUsage
	}
	return classify(err)
}

// classify maps the sentinels of every package to the README's contract:
// ExitUnreachable when the daemon's socket has no listener, ExitPermission
// for any permission error (the socket, /proc, ptrace, BPF, EACCES/EPERM
// from the file system), ExitUnsupported when the kernel or hardware lacks
// a feature (or another user holds it: DAMON's kdamonds), ExitUsage for an
// option that does not apply to the trace given (--no-decode), ExitError for
// everything else.
func classify(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, api.ErrUnreachable):
		return ExitUnreachable
	case errors.Is(err, api.ErrPermission), errors.Is(err, numa.ErrPermission),
		errors.Is(err, bpf.ErrPermission), errors.Is(err, fs.ErrPermission):
		return ExitPermission
	case errors.Is(err, numa.ErrNotSupported), errors.Is(err, bpf.ErrNotSupported),
		errors.Is(err, bpf.ErrBusy), errors.Is(err, daemon.ErrKernelTiering):
		return ExitUnsupported
	case errors.Is(err, trace.ErrNoDecode):
		return ExitUsage
	}
	return ExitError
}

// plural is "1 region" or "n regions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
