package numa

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// zone is what NodeRoom needs of one zone in /proc/zoneinfo, in pages.
type zone struct {
	node              int
	name              string
	free, high, boost uint64
	protection        []uint64
}

// NodeRoom returns the bytes a movable user allocation (move_pages to the
// node, a page fault there) can take on node id before the node's zones
// reach their high watermarks: the sum over its zones of free pages above
// high + boost + the zone's protection against movable allocations
// (lowmem_reserve). It reads procRoot/zoneinfo (procRoot "" is /proc).
// MemFree in the node's meminfo counts pages the kernel keeps back this
// way: on a 384 MiB node, move_pages failed with ENOMEM at 17 MiB free.
func NodeRoom(procRoot string, id int) (uint64, error) {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	path := filepath.Join(procRoot, "zoneinfo")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading the room of node %d: %w", id, err)
	}
	zones, err := parseZoneinfo(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var mine []zone
	for _, z := range zones {
		if z.node == id {
			mine = append(mine, z)
		}
	}
	if len(mine) == 0 {
		return 0, fmt.Errorf("%s lists no zone of node %d: %w", path, id, ErrNoNode)
	}
	cls := movableClass(mine)
	var pages uint64
	for _, z := range mine {
		keep := z.high + z.boost
		if cls < len(z.protection) {
			keep += z.protection[cls]
		}
		if z.free > keep {
			pages += z.free - keep
		}
	}
	return pages * uint64(PageSize), nil
}

// movableClass is the index, in the protection arrays, of the zone a
// movable allocation may use at the highest: Movable, which every node
// lists, populated or not, else the last zone.
func movableClass(zones []zone) int {
	for i, z := range zones {
		if z.name == "Movable" {
			return i
		}
	}
	return len(zones) - 1
}

// parseZoneinfo reads the zones of /proc/zoneinfo: "Node N, zone NAME"
// headers, then "pages free", "boost", "high" and "protection: (...)".
func parseZoneinfo(b []byte) ([]zone, error) {
	var zones []zone
	var z *zone
	sc := bufio.NewScanner(bytes.NewReader(b))
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "Node ") {
			var node int
			var name string
			if _, err := fmt.Sscanf(text, "Node %d, zone %s", &node, &name); err != nil {
				return nil, fmt.Errorf("line %d: %q is not a zone header: %w", line, text, ErrParse)
			}
			zones = append(zones, zone{node: node, name: name})
			z = &zones[len(zones)-1]
			continue
		}
		if z == nil {
			continue
		}
		if err := z.set(strings.Fields(text)); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return zones, nil
}

// set takes one field line of a zone.
func (z *zone) set(f []string) error {
	var dst *uint64
	switch {
	case len(f) == 3 && f[0] == "pages" && f[1] == "free":
		dst, f = &z.free, f[1:]
	case len(f) == 2 && f[0] == "boost":
		dst = &z.boost
	case len(f) == 2 && f[0] == "high":
		dst = &z.high
	case len(f) >= 2 && f[0] == "protection:":
		return z.setProtection(strings.Join(f[1:], ""))
	default:
		return nil
	}
	v, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return fmt.Errorf("%s %q is not a number: %w", f[0], f[1], ErrParse)
	}
	*dst = v
	return nil
}

// setProtection parses "(0,1434,1434)".
func (z *zone) setProtection(s string) error {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	z.protection = z.protection[:0]
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return fmt.Errorf("protection %q is not a list of numbers: %w", s, ErrParse)
		}
		z.protection = append(z.protection, v)
	}
	return nil
}
