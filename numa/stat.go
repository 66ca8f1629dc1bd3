package numa

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"
)

// DefaultProcRoot is where procfs is mounted.
const DefaultProcRoot = "/proc"

// Stat is the part of /proc/PID/stat kvtier uses.
type Stat struct {
	PID   int    // field 1
	Comm  string // field 2, without the parentheses
	State byte   // field 3: R, S, D, Z, ...
	// UTime and STime are fields 14 and 15: CPU time in user and kernel
	// mode, in clock ticks (ClockTick each).
	UTime, STime uint64
	// StartTime is field 22: when the process started, in clock ticks
	// after boot. A PID and its start time name one process for ever.
	StartTime uint64
}

// ClockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on every
// Linux architecture kvtier builds for).
const ClockTick = 10 * time.Millisecond

// CPU is the CPU time the process or thread used, user and kernel mode.
func (s Stat) CPU() time.Duration { return time.Duration(s.UTime+s.STime) * ClockTick }

// statUTimeField is the 1-based index of utime in /proc/PID/stat (stime
// follows it).
const statUTimeField = 14

// statStartField is the 1-based index of starttime in /proc/PID/stat.
const statStartField = 22

// ParseStat parses the contents of /proc/PID/stat. The command name (field
// 2) may contain spaces and parentheses, so it runs from the first '(' to
// the last ')'.
func ParseStat(b []byte) (Stat, error) {
	var s Stat
	b = bytes.TrimRight(b, "\n")
	open := bytes.IndexByte(b, '(')
	closing := bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return s, fmt.Errorf("no (comm) field: %w", ErrParse)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil || pid <= 0 {
		return s, fmt.Errorf("field 1 (pid) %q is not a positive integer: %w", bytes.TrimSpace(b[:open]), ErrParse)
	}
	s.PID = pid
	s.Comm = string(b[open+1 : closing])
	rest := bytes.Fields(b[closing+1:])
	// rest[0] is field 3 (state), so field N is rest[N-3].
	if len(rest) < statStartField-2 {
		return s, fmt.Errorf("%d fields after comm, want at least %d: %w", len(rest), statStartField-2, ErrParse)
	}
	if len(rest[0]) != 1 {
		return s, fmt.Errorf("field 3 (state) %q is not one character: %w", rest[0], ErrParse)
	}
	s.State = rest[0][0]
	for i, f := range []*uint64{&s.UTime, &s.STime} {
		v := rest[statUTimeField+i-3]
		if *f, err = strconv.ParseUint(string(v), 10, 64); err != nil {
			return s, fmt.Errorf("field %d %q is not a number: %w", statUTimeField+i, v, ErrParse)
		}
	}
	st := rest[statStartField-3]
	if s.StartTime, err = strconv.ParseUint(string(st), 10, 64); err != nil {
		return s, fmt.Errorf("field %d (starttime) %q is not a number: %w", statStartField, st, ErrParse)
	}
	return s, nil
}

// ReadStat reads and parses procRoot/PID/stat (procRoot "" is /proc). A
// missing process yields ErrProcessGone; errors name the file.
func ReadStat(procRoot string, pid int) (Stat, error) {
	return readProcFile(procRoot, pid, "stat", func(r io.Reader) (Stat, error) {
		b, err := io.ReadAll(r)
		if err != nil {
			return Stat{}, err
		}
		s, err := ParseStat(b)
		if err == nil && s.PID != pid {
			err = fmt.Errorf("names pid %d: %w", s.PID, ErrParse)
		}
		return s, err
	})
}

func procPath(procRoot string, pid int, name string) string {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	return filepath.Join(procRoot, strconv.Itoa(pid), name)
}
