package result

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ of Debian's x86 kernels: /proc/PID/stat's unit.
const clockTicks = 100

// CPU is CPU seconds (user + system) of the processes that tier memory.
type CPU struct {
	// Daemon is the kvtier daemon's; Kdamond every kdamond thread's.
	Daemon  float64 `json:"daemon_seconds"`
	Kdamond float64 `json:"kdamond_seconds"`
}

// CPUSeconds sums utime and stime (fields 14 and 15) of the processes
// called kvtier and of the kernel threads called kdamond.N in a dump of
// /proc/*/stat lines.
func CPUSeconds(stats []byte) (kvtier, kdamond float64) {
	sc := bufio.NewScanner(bytes.NewReader(stats))
	for sc.Scan() {
		line := sc.Text()
		open, closing := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
		if open < 0 || closing < open {
			continue
		}
		comm := line[open+1 : closing]
		rest := strings.Fields(line[closing+1:])
		// rest[0] is field 3, so field N is rest[N-3].
		if len(rest) < 13 {
			continue
		}
		ut, err1 := strconv.ParseFloat(rest[11], 64)
		st, err2 := strconv.ParseFloat(rest[12], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		secs := (ut + st) / clockTicks
		switch {
		case comm == "kvtier":
			kvtier += secs
		case strings.HasPrefix(comm, "kdamond"):
			kdamond += secs
		}
	}
	return kvtier, kdamond
}
