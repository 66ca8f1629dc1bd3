package bpf

import (
	"cmp"
	"slices"
)

// damonLayout turns the watched regions into DAMON targets, one per
// process in pid order, each monitored only in its regions (not in the
// rest of its address space), cut into DAMON regions at block boundaries
// so that every DAMON region covers whole blocks of one watched region and
// its nr_accesses is theirs alone. All DAMON regions have about the same
// size: one block, or, for small blocks or when the blocks would exceed
// maxRegions DAMON regions (0: no limit), a run of blocks as large as the
// largest block or total/maxRegions, whichever is larger (so there are
// about maxRegions at most: a region's partial last run adds one).
func damonLayout(regions map[uint32]Region, maxRegions uint32) []damonTarget {
	byPID := map[uint32][]Region{}
	var total, largest uint64
	for _, r := range regions {
		byPID[r.PID] = append(byPID[r.PID], r)
		total += r.End - r.Start
		largest = max(largest, r.BlockSize)
	}
	size := largest
	if maxRegions > 0 {
		size = max(size, (total+uint64(maxRegions)-1)/uint64(maxRegions))
	}
	targets := make([]damonTarget, 0, len(byPID))
	for pid, rs := range byPID {
		slices.SortFunc(rs, func(a, b Region) int { return cmp.Compare(a.Start, b.Start) })
		t := damonTarget{pid: pid}
		for _, r := range rs {
			t.regions = appendCuts(t.regions, r, size)
		}
		targets = append(targets, t)
	}
	slices.SortFunc(targets, func(a, b damonTarget) int { return cmp.Compare(a.pid, b.pid) })
	return targets
}

// appendCuts appends r cut into runs of whole blocks of at least size
// bytes (the fewest blocks that make size, at least one).
func appendCuts(dst []damonRange, r Region, size uint64) []damonRange {
	per := max((size+r.BlockSize-1)/r.BlockSize, 1) * r.BlockSize
	for start := r.Start; start < r.End; start += per {
		dst = append(dst, damonRange{start: start, end: min(start+per, r.End)})
	}
	return dst
}
