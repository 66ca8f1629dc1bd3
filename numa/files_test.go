package numa

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOutOfFiles(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{decodePidfdErrno(unix.EMFILE), true},
		{fmt.Errorf("pid 7: %w", decodePidfdErrno(unix.ENFILE)), true},
		{&fs.PathError{Op: "open", Path: "/proc/7/maps", Err: unix.EMFILE}, true},
		{fmt.Errorf("reading maps: %w", &fs.PathError{Op: "open", Path: "/proc/7/stat", Err: unix.ENFILE}), true},
		{decodePidfdErrno(unix.ESRCH), false},
		{errors.New("too many open files"), false}, // text is not an errno
		{nil, false},
	}
	for _, tt := range tests {
		if got := OutOfFiles(tt.err); got != tt.want {
			t.Errorf("OutOfFiles(%v) = %v, want %v", tt.err, got, tt.want)
		}
		if tt.want && (errors.Is(tt.err, ErrProcessGone) || errors.Is(tt.err, ErrPermission)) {
			t.Errorf("%v: out of files, yet ErrProcessGone or ErrPermission", tt.err)
		}
	}
}

func TestFileLimit(t *testing.T) {
	n, err := FileLimit()
	if err != nil || n == 0 {
		t.Fatalf("FileLimit() = %d, %v", n, err)
	}
}
