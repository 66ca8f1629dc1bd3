package daemon

import (
	"errors"
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// A region's blocks are materialised lazily (issue 13: registration costs
// in proportion to regions, not blocks, where the blocks are untouched).
// A block that is unpinned and never sampled, hinted, moved or marked
// needs nothing the region does not already say: its metadata is the
// region's (region.meta with region.classOf) and its tier is r.fast. A
// slow one is nothing to the planner, which plans only promotions of
// sampled blocks and demotions of fast ones; a fast one is counted in the
// region's plan.Pool, which the planner demotes first, asking the
// region's poolSource for a policy.Block only for the blocks it demotes.
// Such a block costs the region a bit (its tier), and 4 bytes each for
// its slot and its view heat once a block of its chunk of 1,024 was
// materialised or read (blockbits.go). The first event that needs it
// (blockLocked: a sample, a hint, a reconcile finding it fast, a pin, a
// think_complete mark of a fast block) gives it a policy.Block and tracks
// it (out of the pool). Pinned blocks are materialised at registration,
// and a registration pools the fast blocks between two pinned ranges in
// one planner call (poolRunLocked).

// blockPage is how many policy.Blocks a page of a blockStore holds.
const blockPage = 512

// blockStore holds the policy.Blocks of a region's materialised blocks in
// pages that never move (the planner keeps pointers to them until the
// region is dropped), numbered by slot, and maps block indexes to slots
// in a directory of chunks allocated as blocks of theirs are materialised.
type blockStore struct {
	n       int                 // blocks of the region
	slots   []*[chunkLen]uint32 // slot+1 of each block, 0 while it is not materialised; a nil chunk has none
	pages   []*[blockPage]policy.Block
	used    uint32   // slots handed out (the high-water mark)
	free    []uint32 // slots free for reuse
	retired []uint32 // slots freed since the last sweep (reused after the next)
}

// newBlockStore returns the store of a region of n blocks, none
// materialised.
func newBlockStore(n int) blockStore {
	return blockStore{n: n, slots: make([]*[chunkLen]uint32, chunksOf(n))}
}

// len is the number of blocks of the region.
func (s *blockStore) len() int { return s.n }

// slot is block i's slot+1, 0 while it is not materialised.
func (s *blockStore) slot(i int) uint32 {
	if c := s.slots[i>>chunkShift]; c != nil {
		return c[i&chunkMask]
	}
	return 0
}

// materialised is the number of blocks that have a policy.Block.
func (s *blockStore) materialised() int { return int(s.used) - len(s.free) - len(s.retired) }

// get returns block i's policy.Block, or nil while it has none.
func (s *blockStore) get(i int) *policy.Block {
	slot := s.slot(i)
	if slot == 0 {
		return nil
	}
	slot--
	return &s.pages[slot/blockPage][slot%blockPage]
}

// add gives block i, which has none, a zero policy.Block and returns it.
func (s *blockStore) add(i int) *policy.Block {
	var slot uint32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		slot = s.used
		if int(slot/blockPage) == len(s.pages) {
			s.pages = append(s.pages, new([blockPage]policy.Block))
		}
		s.used++
	}
	c := s.slots[i>>chunkShift]
	if c == nil {
		c = new([chunkLen]uint32)
		s.slots[i>>chunkShift] = c
	}
	c[i&chunkMask] = slot + 1
	b := &s.pages[slot/blockPage][slot%blockPage]
	*b = policy.Block{}
	return b
}

// drop takes block i's policy.Block away (the block is no longer
// tracked); its slot is reused after the next recycle.
func (s *blockStore) drop(i int) {
	c := s.slots[i>>chunkShift]
	s.retired = append(s.retired, c[i&chunkMask]-1)
	c[i&chunkMask] = 0
}

// recycle makes the slots dropped before it reusable.
func (s *blockStore) recycle() {
	s.free = append(s.free, s.retired...)
	s.retired = s.retired[:0]
}

// errNotYetTracked is returned for a block of a region whose registration
// has not reached it yet (see track.go).
var errNotYetTracked = errors.New("the registration has not reached the block yet")

// blockLocked returns block i of r, materialising and tracking it first
// if it has no policy.Block yet.
func (d *Daemon) blockLocked(r *region, i int, now policy.Time) (*policy.Block, error) {
	if b := r.blocks.get(i); b != nil {
		return b, nil
	}
	if r.adding && i >= r.tracked {
		return nil, fmt.Errorf("block %d of region %d: %w", i, r.id, errNotYetTracked)
	}
	return d.materialiseLocked(r, i, now)
}

// materialiseLocked gives block i of r, not materialised, its
// policy.Block (the region's metadata) and tracks it in its tier, out of
// the region's pool if it was pooled.
func (d *Daemon) materialiseLocked(r *region, i int, now policy.Time) (*policy.Block, error) {
	return d.materialiseFrom(r, i, r.pooled(i), now)
}

// materialiseFrom is materialiseLocked for a block that r's pool counts
// if pooled (an update that reopens the pool knows better than
// region.pooled).
func (d *Daemon) materialiseFrom(r *region, i int, pooled bool, now policy.Time) (*policy.Block, error) {
	b := r.newBlock(i)
	if pooled {
		d.planner.TakeFromPool(r.pool, b.Meta.Size)
	}
	if err := d.planner.Track(b, r.fast.get(i), now); err != nil {
		// Not tracked: the block stays unmaterialised.
		r.blocks.drop(i)
		if pooled {
			d.planner.AddToPool(r.pool, b.Meta.Size)
		}
		return nil, fmt.Errorf("tracking block %d of region %d: %w", i, r.id, err)
	}
	return b, nil
}

// newBlock gives block i of r, not materialised, its policy.Block with
// the metadata the region gives it (not tracked yet).
func (r *region) newBlock(i int) *policy.Block {
	b := r.blocks.add(i)
	b.ID = r.idOf(i)
	b.Meta = r.meta(i, r.classOf(i))
	return b
}

// pooled reports whether block i of r is counted in r's pool: fast, not
// materialised, reached by the registration, and r has a pool.
func (r *region) pooled(i int) bool {
	return r.pool != nil && r.fast.get(i) && r.blocks.slot(i) == 0 && (!r.adding || i < r.tracked)
}

// poolLocked counts block i of r, fast and not materialised, into r's
// pool, opening one if r has none.
func (d *Daemon) poolLocked(r *region, i int) error {
	if err := d.openPoolLocked(r, i); err != nil {
		return err
	}
	d.planner.AddToPool(r.pool, int64(r.blockLen(i)))
	return nil
}

// poolRunLocked counts the fast blocks among [lo, hi) of r, none pinned
// nor materialised, into r's pool in one planner call (a popcount of the
// run's tiers: a registration costs per run, not per block), opening a
// pool if r has none.
func (d *Daemon) poolRunLocked(r *region, lo, hi int) error {
	first := r.fast.next(lo, hi)
	if first == hi {
		return nil
	}
	if err := d.openPoolLocked(r, first); err != nil {
		return err
	}
	k, bytes := r.fastBytes(first, hi)
	largest := int64(r.blockSize)
	if k == 1 {
		largest = int64(bytes) // the one block may be the short last one
	}
	d.planner.AddRunToPool(r.pool, k, int64(bytes), largest)
	return nil
}

// openPoolLocked opens r's pool, if r has none, with the metadata of its
// block i (unpinned).
func (d *Daemon) openPoolLocked(r *region, i int) error {
	if r.pool != nil {
		return nil
	}
	m := r.meta(i, r.class)
	m.Pinned = false
	pool, err := d.planner.OpenPool(&poolSource{r: r}, m)
	if err != nil {
		return fmt.Errorf("pooling the blocks of region %d: %w", r.id, err)
	}
	r.pool = pool
	return nil
}

// closePoolLocked forgets r's pool, if it has one.
func (d *Daemon) closePoolLocked(r *region) {
	if r.pool != nil {
		d.planner.ClosePool(r.pool)
		r.pool = nil
	}
}

// poolSource gives the planner the pooled blocks of a region, in index
// order (the order in which tracking each block would have admitted
// them). Blocks leave a pool and never rejoin it (a new pool is opened
// when the region's metadata changes), so its cursor only moves on.
type poolSource struct {
	r    *region
	next int
}

// Next materialises the next pooled block, for the planner to track.
func (s *poolSource) Next() (*policy.Block, bool) {
	r := s.r
	for ; s.next < r.blocks.len(); s.next++ {
		i := s.next
		if !r.pooled(i) {
			if r.adding && i >= r.tracked {
				return nil, false
			}
			continue
		}
		b := r.newBlock(i)
		s.next++
		return b, true
	}
	return nil, false
}

// eachBlock calls fn for every materialised block of r among its first n,
// in index order.
func (r *region) eachBlock(n int, fn func(i int, b *policy.Block)) {
	for k, c := range r.blocks.slots {
		if c == nil {
			continue
		}
		for j, slot := range c {
			i := k<<chunkShift | j
			if i >= n {
				return
			}
			if slot != 0 {
				fn(i, r.blocks.get(i))
			}
		}
	}
}

// metaOf is block i's metadata: its policy.Block's, or what it would be
// given if materialised now.
func (r *region) metaOf(i int) policy.Meta {
	if b := r.blocks.get(i); b != nil {
		return b.Meta
	}
	return r.meta(i, r.classOf(i))
}

// classOf is the class an unmaterialised block i takes: think_complete if
// an update marked it so, else the region's.
func (r *region) classOf(i int) policy.Class {
	if r.thinkDone != nil && r.thinkDone[i/64]&(1<<(i%64)) != 0 {
		return policy.ClassThinkComplete
	}
	return r.class
}

// markThinkDone records that unmaterialised block i is think_complete.
func (r *region) markThinkDone(i int) {
	if r.thinkDone == nil {
		r.thinkDone = make([]uint64, (r.blocks.len()+63)/64)
	}
	r.thinkDone[i/64] |= 1 << (i % 64)
}

// idOf is block i's policy.BlockID.
func (r *region) idOf(i int) policy.BlockID { return blockID(r.id, i) }
