package daemon

import (
	"fmt"
	"slices"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
)

// maxRegionBlocks bounds the blocks of one region (the sampler counts
// blocks in 32 bits, and the planner keeps state per block).
const maxRegionBlocks = 1 << 22

// region is one tracked KV buffer of one process. Its blocks are
// policy.Blocks with stable addresses, materialised as they are needed
// (blocks.go), so the planner may keep pointers to them until the region
// is dropped.
type region struct {
	id         uint64
	proc       *numa.Process
	addr       uint64
	length     uint64
	blockSize  uint64
	tenant     string
	tenantIdx  uint32
	class      policy.Class
	priority   policy.Priority
	refcount   int32
	pinned     []api.Range
	name       string
	source     string // "api" or "rule:NAME"
	owner      uint32 // uid of the caller that registered it (0 for rules)
	uid        uint32 // the process's real uid at registration (the state file checks it)
	registered time.Time

	blocks    blockStore
	pool      *plan.Pool // its fast blocks not materialised (nil: none yet)
	thinkDone []uint64   // think_complete marks of unmaterialised blocks (nil: none)
	fast      tierBits   // tier of each block as last known (blockbits.go)
	demotedAt []uint32   // when each block was last demoted (demoted.go; nil: none yet)
	heat      heatChunks // access counts decayed with viewHeatHalfLife (placement views)
	accesses  uint64
	watched   []string // samplers watching the region

	// adding is set while a registration hands the region's blocks to
	// the planner in steps (track.go): blocks [0, tracked) are tracked.
	adding  bool
	tracked int

	// inMove is set while the mover runs moves of the region (without the
	// daemon's lock); a region dropped meanwhile keeps proc open until
	// the mover is done with it (closeProc).
	inMove    bool
	closeProc bool
}

// newRegion builds a region, none of its blocks materialised; every block starts fast, and
// addRegion sets the tiers it read (readTiers) before tracking them.
func newRegion(id uint64, proc *numa.Process, addr, length, blockSize uint64) *region {
	n := int((length + blockSize - 1) / blockSize)
	r := &region{id: id, proc: proc, addr: addr, length: length, blockSize: blockSize,
		refcount: 1, priority: policy.PriorityNormal, registered: time.Now().UTC(),
		blocks: newBlockStore(n), fast: newTierBits(n, true), heat: make(heatChunks, chunksOf(n))}
	return r
}

// tierQueryPages bounds the pages queried at once when a region's
// placement is read.
const tierQueryPages = 1 << 16

// readTiers reads where the pages of [addr, addr+length) of proc are and
// returns, per block of blockSize bytes, whether the block is in the fast
// tier: some of its pages are present on a fast node (a block split
// across tiers counts fast, so the fast tier's accounting never counts
// less than is there). A block with no page present counts as slow: it
// holds no fast memory, and counted fast it would be the first victim of
// every demotion while freeing nothing (the planner then shed such
// blocks, one an epoch, and never made the room its promotions needed).
// Its pages fault in wherever the kernel puts them; the reconcile passes
// and the mover's outcomes account them.
func readTiers(proc *numa.Process, topo *numa.Topology, addr, length, blockSize uint64) ([]bool, error) {
	pl, err := readPlacement(proc, topo, addr, length, blockSize, 0)
	if err != nil {
		return nil, err
	}
	fast := make([]bool, len(pl))
	for i, p := range pl {
		fast[i] = p.fast
	}
	return fast, nil
}

// blockPlace says which tiers hold present pages of a block.
type blockPlace struct{ fast, slow bool }

// newPlaceAcc returns an accumulator of the placement of n blocks, no
// page seen (lastNode -1: no node's class looked up yet).
func newPlaceAcc(topo *numa.Topology, n int) placeAcc {
	return placeAcc{topo: topo, pl: make([]blockPlace, n), class: map[int]numa.Class{}, lastNode: -1}
}

// readPlacement reads which tiers hold the present pages of each block of
// blockSize bytes in [addr, addr+length) of proc (move_pages queries): of
// every page, or of perBlock pages a block spread evenly over it, first
// and last included (perBlock 0: every page).
func readPlacement(proc *numa.Process, topo *numa.Topology, addr, length, blockSize uint64, perBlock int) ([]blockPlace, error) {
	n := int((length + blockSize - 1) / blockSize)
	acc := newPlaceAcc(topo, n)
	per := queriedPerBlock(blockSize, perBlock)
	group := max(tierQueryPages/per, 1) // blocks a query names
	var pages []uintptr
	var status []numa.PageStatus
	for first := 0; first < n; first += group {
		pages = placementPages(pages[:0], addr, length, blockSize, first, min(first+group, n), per)
		for off := 0; off < len(pages); off += tierQueryPages {
			chunk := pages[off:min(off+tierQueryPages, len(pages))]
			status = slices.Grow(status[:0], len(chunk))[:len(chunk)]
			if err := numa.QueryPages(proc.PID(), chunk, status, 0); err != nil {
				return nil, fmt.Errorf("reading the placement of pid %d: %w", proc.PID(), err)
			}
			for i, st := range status {
				acc.mark(int((uint64(chunk[i])-addr)/blockSize), st)
			}
		}
	}
	// The answers are the process's only if it was still alive after them.
	if err := proc.Check(); err != nil {
		return nil, err
	}
	return acc.pl, nil
}

// queriedPerBlock is the pages a placement read queries of a block:
// perBlock, or every page when perBlock is 0 or the block has no more.
func queriedPerBlock(blockSize uint64, perBlock int) int {
	all := int((blockSize + uint64(numa.PageSize) - 1) / uint64(numa.PageSize))
	if perBlock <= 0 || perBlock >= all {
		return all
	}
	return perBlock
}

// placementPages appends the pages queried of blocks [first, last): per
// pages of each, evenly spaced from its first page to its last.
func placementPages(dst []uintptr, addr, length, blockSize uint64, first, last, per int) []uintptr {
	ps := uint64(numa.PageSize)
	for b := first; b < last; b++ {
		start := addr + uint64(b)*blockSize
		end := min(start+blockSize, addr+length)
		all := int((end - start + ps - 1) / ps)
		k := min(per, all)
		for j := range k {
			i := j
			if k < all && k > 1 {
				i = j * (all - 1) / (k - 1)
			}
			dst = append(dst, uintptr(start+uint64(i)*ps))
		}
	}
	return dst
}

// placeAcc gathers page statuses into block placements.
type placeAcc struct {
	topo  *numa.Topology
	class map[int]numa.Class // node -> class, looked up once
	pl    []blockPlace
	// The node of the page marked last and its class: a block's pages,
	// and a region's blocks, are mostly on one node, so most pages skip
	// the map.
	lastNode  int
	lastClass numa.Class
}

// mark records that a page of block b has status st.
func (a *placeAcc) mark(b int, st numa.PageStatus) {
	node, ok := st.OnNode()
	if !ok {
		return
	}
	if node != a.lastNode {
		c, seen := a.class[node]
		if !seen {
			c, _ = a.topo.ClassOf(node) // an unknown node counts as fast
			a.class[node] = c
		}
		a.lastNode, a.lastClass = node, c
	}
	if a.lastClass == numa.ClassSlow {
		a.pl[b].slow = true
	} else {
		a.pl[b].fast = true
	}
}

// blockID packs a region ID and a block index into a policy.BlockID.
func blockID(region uint64, index int) policy.BlockID { return region<<32 | uint64(index) }

// splitBlockID undoes blockID.
func splitBlockID(id policy.BlockID) (uint64, int) { return id >> 32, int(id & 0xffffffff) }

// pid is the region's process ID.
func (r *region) pid() int { return r.proc.PID() }

// blockAddr is the first byte of block i.
func (r *region) blockAddr(i int) uint64 { return r.addr + uint64(i)*r.blockSize }

// blockLen is the length of block i (the last one may be short).
func (r *region) blockLen(i int) uint64 {
	return min(r.blockSize, r.addr+r.length-r.blockAddr(i))
}

// pinnedAt reports whether block i lies in a pinned range.
func (r *region) pinnedAt(i int) bool {
	off := uint64(i) * r.blockSize
	for _, p := range r.pinned {
		if off >= p.Offset && off < p.Offset+p.Length {
			return true
		}
	}
	return false
}

// meta is the policy metadata of block i under the region's settings;
// class is the block's own class (think_complete marks are per block).
func (r *region) meta(i int, class policy.Class) policy.Meta {
	return policy.Meta{
		Size:     int64(r.blockLen(i)),
		Tenant:   r.tenantIdx,
		Class:    class,
		Priority: r.priority,
		Pinned:   r.pinnedAt(i),
		RefCount: r.refcount,
		Pos:      int32(i),
		SeqLen:   int32(r.blocks.len()),
	}
}

// checkRanges validates ranges within the region: block aligned, inside,
// not empty.
func (r *region) checkRanges(field string, rs []api.Range) error {
	for i, p := range rs {
		switch {
		case p.Length == 0:
			return fmt.Errorf("%s[%d]: empty range", field, i)
		case p.Offset%r.blockSize != 0 || (p.Length%r.blockSize != 0 && p.Offset+p.Length != r.length):
			return fmt.Errorf("%s[%d]: offset %d length %d: want multiples of the block size %d",
				field, i, p.Offset, p.Length, r.blockSize)
		case p.Offset >= r.length || p.Length > r.length-p.Offset:
			return fmt.Errorf("%s[%d]: offset %d length %d: outside the region of %d bytes",
				field, i, p.Offset, p.Length, r.length)
		}
	}
	return nil
}

// view is the region as the API shows it.
func (r *region) view() api.Region {
	v := api.Region{ID: r.id, PID: r.pid(), Addr: r.addr, Length: r.length, BlockSize: r.blockSize,
		Blocks: r.blocks.len(), Tenant: r.tenant, Class: r.class.String(), Priority: PriorityName(r.priority),
		RefCount: r.refcount, Pinned: append([]api.Range{}, r.pinned...), Name: r.name, Source: r.source,
		Registered: r.registered, Accesses: r.accesses}
	v.FastBytes, v.SlowBytes, _ = r.tierBytes()
	return v
}

// tierBytes returns the bytes of r's blocks in the fast tier and in the
// slow tier, and how many blocks are fast. It counts r.fast's bits
// (popcount): status and the epoch's gauges call it for every region,
// and a region may have millions of blocks.
func (r *region) tierBytes() (fast, slow uint64, nFast int) {
	n := r.blocks.len()
	if n == 0 {
		return 0, 0, 0
	}
	nFast, fast = r.fastBytes(0, n)
	return fast, r.length - fast, nFast
}

// fastBytes returns how many of blocks [lo, hi) are fast and their bytes
// (the region's last block may be short).
func (r *region) fastBytes(lo, hi int) (k int, bytes uint64) {
	k = r.fast.count(lo, hi)
	bytes = uint64(k) * r.blockSize
	if last := r.blocks.len() - 1; hi > last && last >= lo && r.fast.get(last) {
		bytes -= r.blockSize - r.blockLen(last)
	}
	return k, bytes
}

// overlaps reports whether r and the range [addr, addr+length) of pid
// overlap.
func (r *region) overlaps(pid int, addr, length uint64) bool {
	return r.pid() == pid && addr < r.addr+r.length && r.addr < addr+length
}
