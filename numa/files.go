package numa

import (
	"errors"

	"golang.org/x/sys/unix"
)

// OutOfFiles reports whether err says the caller ran out of file
// descriptors: ErrNoFiles, or EMFILE or ENFILE from any call (opening a
// /proc file, say). Such an error says nothing about the process the call
// was about: it is neither ErrProcessGone nor ErrPermission.
func OutOfFiles(err error) bool {
	return errors.Is(err, ErrNoFiles) || errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE)
}

// FileLimit returns this process's soft limit on open file descriptors
// (RLIMIT_NOFILE), the limit EMFILE reports reaching.
func FileLimit() (uint64, error) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0, err
	}
	return rl.Cur, nil
}
