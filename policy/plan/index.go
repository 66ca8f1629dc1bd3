package plan

import "github.com/kvtier/kvtier/policy"

// The planner keeps its entries by value in pages of entryPage entries
// (no allocation per block, and an entry never moves, so *entry stays
// valid while it is tracked), numbered by slot. An index maps block IDs
// to slots in two levels: the ID's high 32 bits name a group (the
// daemon's region), the low 32 bits a place in the group's directory,
// pages of dirPage slots allocated as IDs reach them. A group whose IDs
// are too sparse for pages (the simulator's or a trace's hashed IDs)
// keeps them in a map instead, so no ID pattern costs more than a map.

// Store and directory page sizes (powers of two).
const (
	entryShift = 10
	entryPage  = 1 << entryShift
	dirShift   = 10
	dirPage    = 1 << dirShift
)

// A dense group's directory turns sparse (a map) rather than hold more
// than maxDirBytesPerID bytes per ID beyond dirSlack bytes.
const (
	maxDirBytesPerID = 16
	dirSlack         = 4 * dirPage * 4
)

// store holds the planner's entries.
type store struct {
	pages   []*[entryPage]entry
	used    uint32   // slots handed out so far (the high-water mark)
	free    []uint32 // slots free for reuse
	retired []uint32 // slots untracked since the last plan
}

// at returns the entry in slot s.
func (s *store) at(slot uint32) *entry {
	return &s.pages[slot>>entryShift][slot&(entryPage-1)]
}

// alloc returns a free slot, adding a page when none is left. Its entry
// is zero.
func (s *store) alloc() uint32 {
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	slot := s.used
	if int(slot>>entryShift) == len(s.pages) {
		s.pages = append(s.pages, new([entryPage]entry))
	}
	s.used++
	return slot
}

// retire clears the entry in slot s (no block: untracked) and frees the
// slot at the next plan: until then the touched list of the epoch may
// hold its address, which must not name another block yet.
func (s *store) retire(slot uint32) {
	*s.at(slot) = entry{}
	s.retired = append(s.retired, slot)
}

// recycle frees the retired slots (Plan calls it once touched is empty).
func (s *store) recycle() {
	s.free = append(s.free, s.retired...)
	s.retired = s.retired[:0]
}

// group is the directory of the IDs that share their high 32 bits.
type group struct {
	dir    []*[dirPage]uint32 // slot+1 by low 32 bits, 0 when absent
	pages  int                // directory pages allocated
	sparse map[uint32]uint32  // slot by low 32 bits, once sparse
	n      int                // IDs in the group
	dense  uint32             // low 32 bits below dense always fit the directory
}

// index maps block IDs to slots.
type index struct {
	groups map[uint32]*group
	dense  map[uint32]uint32 // Planner.Dense's declarations, by group
	hi     uint32            // the group last looked up
	last   *group            // nil when none was
	n      int
}

// group returns the group of high bits hi, nil if it has no ID.
func (x *index) group(hi uint32) *group {
	if x.last != nil && x.hi == hi {
		return x.last
	}
	g := x.groups[hi]
	if g != nil {
		x.hi, x.last = hi, g
	}
	return g
}

// get returns the slot of id.
func (x *index) get(id policy.BlockID) (uint32, bool) {
	g := x.group(uint32(id >> 32))
	if g == nil {
		return 0, false
	}
	lo := uint32(id)
	if g.sparse != nil {
		s, ok := g.sparse[lo]
		return s, ok
	}
	if p := int(lo >> dirShift); p < len(g.dir) && g.dir[p] != nil {
		if v := g.dir[p][lo&(dirPage-1)]; v != 0 {
			return v - 1, true
		}
	}
	return 0, false
}

// put records that id, which has no slot, is in slot.
func (x *index) put(id policy.BlockID, slot uint32) {
	hi, lo := uint32(id>>32), uint32(id)
	g := x.group(hi)
	if g == nil {
		if x.groups == nil {
			x.groups = map[uint32]*group{}
		}
		g = &group{dense: x.dense[hi]}
		x.groups[hi] = g
		x.hi, x.last = hi, g
	}
	x.n++
	g.n++
	if g.sparse == nil && !g.place(lo) {
		g.toSparse()
	}
	if g.sparse != nil {
		g.sparse[lo] = slot
		return
	}
	g.dir[lo>>dirShift][lo&(dirPage-1)] = slot + 1
}

// place makes room for lo in the directory, unless the directory would
// then hold more than maxDirBytesPerID bytes per ID beyond dirSlack and lo
// is not below the group's declared dense range.
func (g *group) place(lo uint32) bool {
	p := int(lo >> dirShift)
	if p < len(g.dir) && g.dir[p] != nil {
		return true
	}
	top := max(len(g.dir), p+1)
	bytes := top*8 + (g.pages+1)*dirPage*4
	if bytes > maxDirBytesPerID*g.n+dirSlack && lo >= g.dense {
		return false
	}
	if p >= len(g.dir) {
		g.dir = append(g.dir, make([]*[dirPage]uint32, p+1-len(g.dir))...)
	}
	g.dir[p] = new([dirPage]uint32)
	g.pages++
	return true
}

// toSparse moves the group's directory to a map.
func (g *group) toSparse() {
	g.sparse = make(map[uint32]uint32, g.n)
	for p, page := range g.dir {
		if page == nil {
			continue
		}
		for i, v := range page {
			if v != 0 {
				g.sparse[uint32(p<<dirShift|i)] = v - 1
			}
		}
	}
	g.dir, g.pages = nil, 0
}

// del forgets id, which has a slot; a group left without IDs is dropped.
func (x *index) del(id policy.BlockID) {
	hi, lo := uint32(id>>32), uint32(id)
	g := x.group(hi)
	x.n--
	g.n--
	if g.n == 0 {
		delete(x.groups, hi)
		x.last = nil
		return
	}
	if g.sparse != nil {
		delete(g.sparse, lo)
		return
	}
	g.dir[lo>>dirShift][lo&(dirPage-1)] = 0
}

// Dense declares that the IDs of group (their high 32 bits) that the
// caller tracks have low 32 bits below ids (a daemon region's block
// indexes): the planner indexes them in a directory of 4 bytes per ID
// below ids at most, however few of them are tracked at a time, instead
// of turning to a map (slower) when they are sparse. ids 0 withdraws the
// declaration for groups created from then on.
func (p *Planner) Dense(group, ids uint32) {
	x := &p.ids
	if ids == 0 {
		delete(x.dense, group)
		return
	}
	if x.dense == nil {
		x.dense = map[uint32]uint32{}
	}
	x.dense[group] = ids
	if g := x.groups[group]; g != nil {
		g.dense = ids
	}
}
