package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"unicode"
	"unicode/utf8"

	"github.com/kvtier/kvtier/numa"
)

// Hard bounds of the API's limits: what api { min_block_size,
// max_block_size, max_label_bytes } may be set to.
const (
	minBlockSize   = 4 << 10
	maxBlockSize   = 1 << 30
	maxLabelBound  = 255
	defaultLabelsz = 64
)

// Limits bound what a registration may name (the api block's
// min_block_size, max_block_size and max_label_bytes). Names in the config
// file are the operator's own and are checked against the hard bounds.
type Limits struct {
	MinBlockSize, MaxBlockSize uint64 // a block size is a multiple of the page size between these
	MaxLabelBytes              int    // tenant and region names
}

// DefaultLimits are the API's limits unless the config sets them.
func DefaultLimits() Limits {
	return Limits{MinBlockSize: minBlockSize, MaxBlockSize: maxBlockSize, MaxLabelBytes: defaultLabelsz}
}

// hardLimits are the widest limits the config may set.
var hardLimits = Limits{MinBlockSize: minBlockSize, MaxBlockSize: maxBlockSize, MaxLabelBytes: maxLabelBound}

// blockSizeWant says what a block size must be.
func (l Limits) blockSizeWant() string {
	return fmt.Sprintf("a multiple of the page size (%d) between %s and %s", numa.PageSize,
		sizeString(l.MinBlockSize), sizeString(l.MaxBlockSize))
}

// Sentinels of the limit checks.
var (
	errBadBlockSize = errors.New("bad block size")
	errBadLabel     = errors.New("bad label")
)

// checkBlockSize returns an error saying what is wrong with block size b.
func (l Limits) checkBlockSize(b uint64) error {
	ps := uint64(numa.PageSize)
	switch {
	case b < l.MinBlockSize:
		return fmt.Errorf("%w: %d is less than %s (api.min_block_size)", errBadBlockSize, b, sizeString(l.MinBlockSize))
	case b > l.MaxBlockSize:
		return fmt.Errorf("%w: %d is more than %s (api.max_block_size)", errBadBlockSize, b, sizeString(l.MaxBlockSize))
	case b%ps != 0:
		return fmt.Errorf("%w: %d is not a multiple of the page size %d", errBadBlockSize, b, ps)
	}
	return nil
}

// sizeString writes b in the largest binary unit that divides it.
func sizeString(b uint64) string {
	for _, u := range []struct {
		name  string
		bytes uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.bytes && b%u.bytes == 0 {
			return fmt.Sprintf("%d%s", b/u.bytes, u.name)
		}
	}
	return fmt.Sprintf("%dB", b)
}

// checkLabel checks a tenant or region name: at most MaxLabelBytes bytes
// of valid UTF-8, printable characters only. U+FFFD is refused too: it is
// what JSON decoding makes of invalid UTF-8 and of lone surrogate escapes.
func (l Limits) checkLabel(field, s string) error {
	if len(s) > l.MaxLabelBytes {
		return fmt.Errorf("%w: %s: %d bytes, want at most %d (api.max_label_bytes)", errBadLabel, field, len(s), l.MaxLabelBytes)
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
