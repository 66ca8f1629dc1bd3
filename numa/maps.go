package numa

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start  uintptr `json:"start"`
	End    uintptr `json:"end"` // exclusive
	Perms  string  `json:"perms"`
	Offset uint64  `json:"offset"`
	Dev    string  `json:"dev"`
	Inode  uint64  `json:"inode"`
	// Path is the raw pathname column: a file, "[heap]", "[stack]",
	// "[anon:NAME]" (prctl PR_SET_VMA_ANON_NAME), "/memfd:NAME (deleted)"
	// or empty for anonymous memory.
	Path string `json:"path,omitempty"`
}

// Size returns the mapping's length in bytes.
func (m Mapping) Size() uint64 { return uint64(m.End - m.Start) }

// Deleted reports whether the backing file was deleted (memfd mappings
// always are).
func (m Mapping) Deleted() bool { return strings.HasSuffix(m.Path, " (deleted)") }

// Name returns the mapping's name as kvtier matches it: the path without a
// " (deleted)" suffix, "memfd:NAME" for a memfd (without the leading '/'),
// "[anon:NAME]" and "[heap]" as they are.
func (m Mapping) Name() string {
	n := strings.TrimSuffix(m.Path, " (deleted)")
	if strings.HasPrefix(n, "/memfd:") {
		return n[1:]
	}
	return n
}

// Contains reports whether addr is inside the mapping.
func (m Mapping) Contains(addr uintptr) bool { return addr >= m.Start && addr < m.End }

// Maps is a process's mappings in address order.
type Maps []Mapping

// maxMapsLine bounds one line of a maps file (the path is at most PATH_MAX).
const maxMapsLine = 8192

// ParseMaps parses the contents of a /proc/PID/maps file. Errors give the
// line and column of the bad field.
func ParseMaps(r io.Reader) (Maps, error) {
	var ms Maps
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxMapsLine)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		m, col, err := parseMapsLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("line %d col %d: %v: %w", line, col, err, ErrParse)
		}
		if n := len(ms); n > 0 && m.Start < ms[n-1].End {
			return nil, fmt.Errorf("line %d col 1: mapping %#x overlaps or precedes the one ending at %#x: %w",
				line, m.Start, ms[n-1].End, ErrParse)
		}
		ms = append(ms, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading maps: %v: %w", err, ErrParse)
	}
	return ms, nil
}

// parseMapsLine parses
// "7f0000000000-7f0000021000 rw-p 00000000 00:00 0    [anon:kv]".
// It returns the 1-based column of the field in error.
func parseMapsLine(s string) (Mapping, int, error) {
	var m Mapping
	fields, cols := splitMapsFields(s)
	if len(fields) < 5 {
		return m, len(s) + 1, fmt.Errorf("%d fields, want at least 5", len(fields))
	}
	lo, hi, ok := strings.Cut(fields[0], "-")
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	if !ok || err1 != nil || err2 != nil {
		return m, cols[0], fmt.Errorf("address range %q is not HEX-HEX", fields[0])
	}
	if end <= start {
		return m, cols[0], fmt.Errorf("address range %q ends before it starts", fields[0])
	}
	m.Start, m.End = uintptr(start), uintptr(end)
	if len(fields[1]) != 4 {
		return m, cols[1], fmt.Errorf("permissions %q are not 4 characters", fields[1])
	}
	m.Perms = fields[1]
	if m.Offset, err1 = strconv.ParseUint(fields[2], 16, 64); err1 != nil {
		return m, cols[2], fmt.Errorf("offset %q is not hex", fields[2])
	}
	if _, _, ok := strings.Cut(fields[3], ":"); !ok {
		return m, cols[3], fmt.Errorf("device %q is not MAJOR:MINOR", fields[3])
	}
	m.Dev = fields[3]
	if m.Inode, err1 = strconv.ParseUint(fields[4], 10, 64); err1 != nil {
		return m, cols[4], fmt.Errorf("inode %q is not a number", fields[4])
	}
	if len(fields) > 5 {
		m.Path = s[cols[5]-1:] // the path may contain spaces
	}
	return m, 0, nil
}

// splitMapsFields splits the five fixed fields and the start of the path,
// returning each field's 1-based column.
func splitMapsFields(s string) ([]string, []int) {
	var fields []string
	var cols []int
	i := 0
	for len(fields) < 6 {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			break
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		fields = append(fields, s[i:j])
		cols = append(cols, i+1)
		i = j
	}
	return fields, cols
}

// ReadMaps reads procRoot/PID/maps (procRoot "" is /proc). Errors name the
// file.
func ReadMaps(procRoot string, pid int) (Maps, error) {
	return readProcFile(procRoot, pid, "maps", ParseMaps)
}

// readProcFile opens procRoot/PID/name and parses it. A missing file means
// the process is gone; other errors name the file.
func readProcFile[T any](procRoot string, pid int, name string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	path := procPath(procRoot, pid, name)
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return zero, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
		}
		return zero, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	v, err := parse(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Overlapping returns the mappings that overlap [start, end).
func (ms Maps) Overlapping(start, end uintptr) Maps {
	var out Maps
	for _, m := range ms {
		if m.Start < end && start < m.End {
			out = append(out, m)
		}
	}
	return out
}

// At returns the mapping containing addr.
func (ms Maps) At(addr uintptr) (Mapping, bool) {
	for _, m := range ms {
		if m.Contains(addr) {
			return m, true
		}
	}
	return Mapping{}, false
}

// Named returns the mappings whose Name is name. name may be given as
// "memfd:kv", "/memfd:kv (deleted)", "[anon:kv]" or a file path; a bare
// "kv" also matches "memfd:kv" and "[anon:kv]".
func (ms Maps) Named(name string) Maps {
	want := Mapping{Path: name}.Name()
	var out Maps
	for _, m := range ms {
		n := m.Name()
		if n == want || n == "memfd:"+want || n == "[anon:"+want+"]" {
			out = append(out, m)
		}
	}
	return out
}

// AtLeast returns the mappings of at least size bytes.
func (ms Maps) AtLeast(size uint64) Maps {
	var out Maps
	for _, m := range ms {
		if m.Size() >= size {
			out = append(out, m)
		}
	}
	return out
}
