package numa

import (
	"fmt"
	"strconv"
	"strings"
)

// maxListID bounds IDs in CPU and node lists so that a corrupt file cannot
// make ParseList allocate without limit.
const maxListID = 1 << 16

// ParseList parses a kernel CPU or node list such as "0-3,8,10-11" (the
// format of cpulist, online and nodelist files) into sorted, distinct IDs.
// An empty or blank list is valid and yields no IDs.
func ParseList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var ids []int
	last := -1
	for _, part := range strings.Split(s, ",") {
		lo, hi, err := parseSpan(part)
		if err != nil {
			return nil, err
		}
		if lo <= last {
			return nil, fmt.Errorf("list %q: %q is not ascending", s, part)
		}
		for id := lo; id <= hi; id++ {
			ids = append(ids, id)
		}
		last = hi
	}
	return ids, nil
}

// parseSpan parses "N" or "N-M".
func parseSpan(part string) (int, int, error) {
	a, b, isRange := strings.Cut(part, "-")
	lo, err := parseID(a)
	if err != nil {
		return 0, 0, fmt.Errorf("list item %q: %w", part, err)
	}
	if !isRange {
		return lo, lo, nil
	}
	hi, err := parseID(b)
	if err != nil {
		return 0, 0, fmt.Errorf("list item %q: %w", part, err)
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("list item %q: range end below start", part)
	}
	return lo, hi, nil
}

func parseID(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a non-negative integer", s)
	}
	if n >= maxListID {
		return 0, fmt.Errorf("%d exceeds the limit %d", n, maxListID-1)
	}
	return n, nil
}

// FormatList formats sorted IDs as a kernel list ("0-3,8").
func FormatList(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}
