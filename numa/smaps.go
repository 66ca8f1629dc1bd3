package numa

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// HugeBacking sums the smaps figures of the mappings overlapping a range.
// smaps reports whole mappings, so the figures cover every mapping that
// overlaps the range, not just the overlap.
type HugeBacking struct {
	Mappings      int    `json:"mappings"`
	Size          uint64 `json:"size_bytes"`
	Rss           uint64 `json:"rss_bytes"`
	AnonHugePages uint64 `json:"anon_huge_bytes"` // anonymous THP
	ShmemPmd      uint64 `json:"shmem_pmd_bytes"` // shmem/memfd mapped with PMDs
	FilePmd       uint64 `json:"file_pmd_bytes"`  // file THP mapped with PMDs
	THPEligible   bool   `json:"thp_eligible"`    // any mapping may get THPs
}

// Huge reports whether any of the range is backed by huge pages: then
// move_pages(2) moves 2 MiB at a time and may answer EBUSY.
func (h HugeBacking) Huge() bool { return h.AnonHugePages+h.ShmemPmd+h.FilePmd > 0 }

// smapsKeys maps smaps keys to the HugeBacking fields they fill.
var smapsKeys = map[string]func(*HugeBacking) *uint64{
	"Size:":           func(h *HugeBacking) *uint64 { return &h.Size },
	"Rss:":            func(h *HugeBacking) *uint64 { return &h.Rss },
	"AnonHugePages:":  func(h *HugeBacking) *uint64 { return &h.AnonHugePages },
	"ShmemPmdMapped:": func(h *HugeBacking) *uint64 { return &h.ShmemPmd },
	"FilePmdMapped:":  func(h *HugeBacking) *uint64 { return &h.FilePmd },
}

// MappingBacking is one mapping of an smaps file with its figures.
type MappingBacking struct {
	Mapping
	HugeBacking
}

// ParseSmaps parses the contents of /proc/PID/smaps into one entry per
// mapping (each with Mappings = 1). Errors give the line.
func ParseSmaps(r io.Reader) ([]MappingBacking, error) {
	var out []MappingBacking
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxMapsLine)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if !strings.HasSuffix(f[0], ":") {
			m, col, err := parseMapsLine(text)
			if err != nil {
				return nil, fmt.Errorf("line %d col %d: %v: %w", line, col, err, ErrParse)
			}
			out = append(out, MappingBacking{Mapping: m, HugeBacking: HugeBacking{Mappings: 1}})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("line %d: %s before the first mapping: %w", line, f[0], ErrParse)
		}
		h := &out[len(out)-1].HugeBacking
		if f[0] == "THPeligible:" && len(f) > 1 && f[1] == "1" {
			h.THPEligible = true
		}
		field, ok := smapsKeys[f[0]]
		if !ok {
			continue
		}
		v, err := parseKB(f[1:])
		if err != nil {
			return nil, fmt.Errorf("line %d: %s %v: %w", line, f[0], err, ErrParse)
		}
		*field(h) += v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading smaps: %v: %w", err, ErrParse)
	}
	return out, nil
}

// Sum adds up the figures of the mappings overlapping [start, end).
func Sum(ms []MappingBacking, start, end uintptr) HugeBacking {
	var h HugeBacking
	for _, m := range ms {
		if m.Start < end && start < m.End {
			b := m.HugeBacking
			h.Mappings++
			h.Size += b.Size
			h.Rss += b.Rss
			h.AnonHugePages += b.AnonHugePages
			h.ShmemPmd += b.ShmemPmd
			h.FilePmd += b.FilePmd
			h.THPEligible = h.THPEligible || b.THPEligible
		}
	}
	return h
}

// ReadSmaps reads procRoot/PID/smaps (procRoot "" is /proc). Errors name
// the file.
func ReadSmaps(procRoot string, pid int) ([]MappingBacking, error) {
	return readProcFile(procRoot, pid, "smaps", ParseSmaps)
}

// ReadHugeBacking reads procRoot/PID/smaps and sums the mappings
// overlapping [start, end). Errors name the file.
func ReadHugeBacking(procRoot string, pid int, start, end uintptr) (HugeBacking, error) {
	ms, err := ReadSmaps(procRoot, pid)
	if err != nil {
		return HugeBacking{}, err
	}
	return Sum(ms, start, end), nil
}
