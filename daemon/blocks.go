package daemon

import (
	"errors"
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

// A region's blocks are materialised lazily (issue 13: registration costs
// in proportion to regions, not blocks, where the blocks are untouched).
// A block that is slow, unpinned and never sampled, hinted, moved or
// marked needs nothing the region does not already say: its metadata is
// the region's (region.meta with region.classOf), its tier is r.fast, and
// the planner, which plans only promotions of sampled blocks and
// demotions of fast ones, has nothing to do with it. Such a block costs
// the region 9 bytes (its slot below, its tier and its view heat). The
// first event that needs it (blockLocked: a sample, a hint, a reconcile
// finding it fast, a pin) gives it a policy.Block and tracks it. Fast and
// pinned blocks are materialised at registration.

// blockPage is how many policy.Blocks a page of a blockStore holds.
const blockPage = 512

// blockStore holds the policy.Blocks of a region's materialised blocks in
// pages that never move (the planner keeps pointers to them until the
// region is dropped), numbered by slot, and maps block indexes to slots.
type blockStore struct {
	slots []uint32 // slot+1 of each block, 0 while it is not materialised
	pages []*[blockPage]policy.Block
	used  uint32 // slots handed out
}

// newBlockStore returns the store of a region of n blocks, none
// materialised.
func newBlockStore(n int) blockStore { return blockStore{slots: make([]uint32, n)} }

// len is the number of blocks of the region.
func (s *blockStore) len() int { return len(s.slots) }

// materialised is the number of blocks that have a policy.Block.
func (s *blockStore) materialised() int { return int(s.used) }

// get returns block i's policy.Block, or nil while it has none.
func (s *blockStore) get(i int) *policy.Block {
	slot := s.slots[i]
	if slot == 0 {
		return nil
	}
	slot--
	return &s.pages[slot/blockPage][slot%blockPage]
}

// add gives block i, which has none, a zero policy.Block and returns it.
func (s *blockStore) add(i int) *policy.Block {
	slot := s.used
	if int(slot/blockPage) == len(s.pages) {
		s.pages = append(s.pages, new([blockPage]policy.Block))
	}
	s.used++
	s.slots[i] = slot + 1
	return &s.pages[slot/blockPage][slot%blockPage]
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
// policy.Block (the region's metadata) and tracks it in its tier.
func (d *Daemon) materialiseLocked(r *region, i int, now policy.Time) (*policy.Block, error) {
	b := r.blocks.add(i)
	b.ID = r.idOf(i)
	b.Meta = r.meta(i, r.classOf(i))
	if err := d.planner.Track(b, r.fast[i], now); err != nil {
		// Not tracked: the block stays unmaterialised (its page slot is
		// lost until the region is dropped).
		r.blocks.slots[i] = 0
		return nil, fmt.Errorf("tracking block %d of region %d: %w", i, r.id, err)
	}
	return b, nil
}

// eachBlock calls fn for every materialised block of r among its first n,
// in index order.
func (r *region) eachBlock(n int, fn func(i int, b *policy.Block)) {
	for i, slot := range r.blocks.slots[:n] {
		if slot != 0 {
			fn(i, r.blocks.get(i))
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

// needsBlock reports whether block i must be materialised as soon as it
// is tracked: it holds fast memory (the planner accounts and demotes it)
// or it is pinned (a slow pinned block is promoted by the next plan).
func (r *region) needsBlock(i int) bool { return r.fast[i] || r.pinnedAt(i) }
