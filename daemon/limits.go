package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"unicode"
	"unicode/utf8"

	"github.com/kvtier/kvtier/numa"
)

// Block-size bounds: a multiple of the page size between these.
const (
	minBlockSize = 4 << 10
	maxBlockSize = 1 << 30
)

// blockSizeWant says what a block size must be.
var blockSizeWant = fmt.Sprintf("a multiple of the page size (%d) between 4KiB and 1GiB", numa.PageSize)

// Sentinels of the limit checks.
var (
	errBadBlockSize = errors.New("bad block size")
	errBadLabel     = errors.New("bad label")
)

// checkBlockSize returns an error saying what is wrong with block size b.
func checkBlockSize(b uint64) error {
	ps := uint64(numa.PageSize)
	switch {
	case b < minBlockSize:
		return fmt.Errorf("%w: %d is less than 4KiB", errBadBlockSize, b)
	case b > maxBlockSize:
		return fmt.Errorf("%w: %d is more than 1GiB", errBadBlockSize, b)
	case b%ps != 0:
		return fmt.Errorf("%w: %d is not a multiple of the page size %d", errBadBlockSize, b, ps)
	}
	return nil
}

// checkLabel checks a tenant or region name: at most MaxLabelBytes bytes
// of valid UTF-8, printable characters only. U+FFFD is refused too: it is
// what JSON decoding makes of invalid UTF-8 and of lone surrogate escapes.
func checkLabel(field, s string) error {
	if len(s) > MaxLabelBytes {
		return fmt.Errorf("%w: %s: %d bytes, want at most %d", errBadLabel, field, len(s), MaxLabelBytes)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s: not valid UTF-8", errBadLabel, field)
	}
	for i, r := range s {
		if r == utf8.RuneError {
			return fmt.Errorf("%w: %s: byte %d: U+FFFD (invalid UTF-8 or a lone surrogate escape)",
				errBadLabel, field, i)
		}
		if !unicode.IsPrint(r) {
			return fmt.Errorf("%w: %s: byte %d: %U is not a printable character", errBadLabel, field, i, r)
		}
	}
	return nil
}

// tooMany is the answer when a registration limit is reached.
func tooMany(format string, a ...any) error {
	return &reqError{http.StatusTooManyRequests, fmt.Sprintf(format, a...)}
}

// outOfFiles is the answer when the daemon ran out of file descriptors
// while opening or reading process pid (err): 503, naming the limit. It is
// the daemon's shortage, not the process's doing: the registration may be
// retried, and no region is dropped for it (reapLocked keeps a region
// whose process it cannot read).
func outOfFiles(pid int, err error) error {
	limit := "its RLIMIT_NOFILE"
	if n, lerr := numa.FileLimit(); lerr == nil {
		limit = fmt.Sprintf("its RLIMIT_NOFILE of %d", n)
	}
	return &reqError{http.StatusServiceUnavailable, fmt.Sprintf(
		"pid %d: the daemon is out of file descriptors (%s; each registered process holds one): %v; "+
			"retry later, unregister processes, or raise LimitNOFILE= in kvtier.service", pid, limit, err)}
}

// checkRegionLimitsLocked refuses one more region of pid when the limits
// of the API config are reached.
func (d *Daemon) checkRegionLimitsLocked(pid int) error {
	c := d.cfg.API
	if len(d.regions) >= c.MaxRegions {
		return tooMany("%d regions registered, the limit (api.max_regions = %d); unregister some first",
			len(d.regions), c.MaxRegions)
	}
	n := 0
	for _, r := range d.regions {
		if r.pid() == pid {
			n++
		}
	}
	if n >= c.MaxRegionsPerProcess {
		return tooMany("pid %d has %d regions, the limit (api.max_regions_per_process = %d); "+
			"register fewer, larger regions", pid, n, c.MaxRegionsPerProcess)
	}
	return nil
}
