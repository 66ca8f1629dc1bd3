package bpf

import (
	"cmp"
	"slices"

	"github.com/kvtier/kvtier/numa"
)

// DefaultRegionsPerBlock is how many DAMON regions a block gets by default
// (the damon sampler's regions_per_block): one. DAMON checks one page of
// each region per sampling interval, and a KV block is read whole, so a
// read is caught by whichever page is checked; more regions a block find
// blocks only partly read, at kdamond CPU time proportional to the regions.
const DefaultRegionsPerBlock = 1

// damonLayout turns the watched regions into DAMON targets, one per
// process in pid order, each monitored only in its regions (not in the
// rest of its address space), cut into DAMON regions that never cross a
// block boundary, so that a DAMON region's nr_accesses belongs to one
// block, or to one run of whole blocks. All DAMON regions have about the
// same size (regionSize): the largest block cut in perBlock pieces (0: 1)
// while the regions fit maxRegions (0: no limit), else in fewer, else runs
// of blocks (so there are about maxRegions at most: a region's partial
// last piece adds one).
func damonLayout(regions map[uint32]Region, maxRegions, perBlock uint32) []damonTarget {
	byPID := map[uint32][]Region{}
	for _, r := range regions {
		byPID[r.PID] = append(byPID[r.PID], r)
	}
	size := regionSize(regions, maxRegions, perBlock)
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

// regionSize is the DAMON region size for regions under maxRegions: the
// largest block split in as many equal pieces (up to perBlock) as
// maxRegions leaves room for, else runs of blocks as large as
// total/maxRegions (appendCuts rounds them up to whole blocks).
func regionSize(regions map[uint32]Region, maxRegions, perBlock uint32) uint64 {
	var total, largest uint64
	for _, r := range regions {
		total += r.End - r.Start
		largest = max(largest, r.BlockSize)
	}
	if largest == 0 {
		return 0
	}
	k := uint64(max(perBlock, 1))
	if maxRegions > 0 {
		k = min(k, uint64(maxRegions)/((total+largest-1)/largest))
	}
	if k == 0 {
		return (total + uint64(maxRegions) - 1) / uint64(maxRegions)
	}
	ps := uint64(numa.PageSize)
	return max(largest/k/ps*ps, ps)
}

// appendCuts appends r cut into DAMON regions of about size bytes: pieces
// of each block when size is smaller than a block (a block's last piece
// may be shorter), else runs of whole blocks of at least size bytes (the
// fewest blocks that make size).
func appendCuts(dst []damonRange, r Region, size uint64) []damonRange {
	if size >= r.BlockSize {
		per := max((size+r.BlockSize-1)/r.BlockSize, 1) * r.BlockSize
		for start := r.Start; start < r.End; start += per {
			dst = append(dst, damonRange{start: start, end: min(start+per, r.End)})
		}
		return dst
	}
	for b := r.Start; b < r.End; b += r.BlockSize {
		end := min(b+r.BlockSize, r.End)
		for start := b; start < end; start += size {
			dst = append(dst, damonRange{start: start, end: min(start+size, end)})
		}
	}
	return dst
}
