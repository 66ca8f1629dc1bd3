package policy

import (
	"errors"
	"fmt"
)

// ErrNoRoom is returned when a block cannot fit in the fast tier even after
// every evictable block is gone (pinned blocks fill it, or the block is
// larger than the capacity).
var ErrNoRoom = errors.New("no room in fast tier")

// Set is the fast-tier residency set: it admits blocks under a byte capacity
// and evicts through a Policy. Pinned blocks occupy capacity but are never
// handed to the policy, so they are never chosen as victims.
type Set struct {
	pol         Policy
	capacity    int64
	used        int64
	pinnedBytes int64
	resident    map[BlockID]*Block
}

// NewSet returns an empty set of the given capacity in bytes.
func NewSet(p Policy, capacity int64) *Set {
	return &Set{pol: p, capacity: capacity, resident: map[BlockID]*Block{}}
}

// Policy returns the set's policy.
func (s *Set) Policy() Policy { return s.pol }

// Capacity returns the capacity in bytes.
func (s *Set) Capacity() int64 { return s.capacity }

// Used returns the bytes of resident blocks, pinned ones included.
func (s *Set) Used() int64 { return s.used }

// Len returns the number of resident blocks.
func (s *Set) Len() int { return len(s.resident) }

// Contains reports whether the block with id is resident.
func (s *Set) Contains(id BlockID) bool { _, ok := s.resident[id]; return ok }

// Access records an access to b and reports whether it was resident.
func (s *Set) Access(b *Block, now Time) bool {
	_, hit := s.resident[b.ID]
	if !b.Meta.Pinned {
		s.pol.Access(b, now)
	}
	return hit
}

// Admit makes room for b, evicting victims chosen by the policy, and admits
// it. The evicted blocks are appended to evicted and returned. If b cannot
// fit, nothing changes and ErrNoRoom is returned.
func (s *Set) Admit(b *Block, now Time, evicted []*Block) ([]*Block, error) {
	if _, ok := s.resident[b.ID]; ok {
		return evicted, nil
	}
	if b.Meta.Size > s.capacity-s.pinnedBytes {
		return evicted, fmt.Errorf("admitting block %d (%d bytes, %d of %d pinned): %w",
			b.ID, b.Meta.Size, s.pinnedBytes, s.capacity, ErrNoRoom)
	}
	evicted, err := s.MakeRoom(b.Meta.Size, now, evicted)
	if err != nil {
		return evicted, err
	}
	s.resident[b.ID] = b
	s.used += b.Meta.Size
	if b.Meta.Pinned {
		s.pinnedBytes += b.Meta.Size
	} else {
		s.pol.Admit(b, now)
	}
	return evicted, nil
}

// MakeRoom evicts victims until size more bytes fit. The evicted blocks are
// appended to evicted.
func (s *Set) MakeRoom(size int64, now Time, evicted []*Block) ([]*Block, error) {
	for s.used+size > s.capacity {
		v, ok := s.pol.Victim(now)
		if !ok {
			return evicted, fmt.Errorf("making room for %d bytes (%d of %d used, %d pinned): %w",
				size, s.used, s.capacity, s.pinnedBytes, ErrNoRoom)
		}
		s.Evict(v, now)
		evicted = append(evicted, v)
	}
	return evicted, nil
}

// Evict demotes a resident block.
func (s *Set) Evict(b *Block, now Time) {
	if _, ok := s.resident[b.ID]; !ok {
		return
	}
	delete(s.resident, b.ID)
	s.used -= b.Meta.Size
	if b.Meta.Pinned {
		s.pinnedBytes -= b.Meta.Size
		return
	}
	s.pol.Evict(b, now)
}

// Forget drops b whether resident or not: the block was freed.
func (s *Set) Forget(b *Block) {
	if _, ok := s.resident[b.ID]; ok {
		delete(s.resident, b.ID)
		s.used -= b.Meta.Size
		if b.Meta.Pinned {
			s.pinnedBytes -= b.Meta.Size
		}
	}
	s.pol.Forget(b)
}

// SetPinned changes whether b is pinned, moving it out of or into the
// policy's candidates when it is resident.
func (s *Set) SetPinned(b *Block, pinned bool, now Time) {
	if b.Meta.Pinned == pinned {
		return
	}
	m := b.Meta
	m.Pinned = pinned
	// Size is unchanged, so nothing has to be evicted and no error occurs.
	_, _ = s.Update(b, m, now, nil)
}

// Update gives b new metadata. A resident block that becomes pinned leaves
// the policy's candidates; one that becomes unpinned joins them. A policy
// that implements Updater is told about any other change of an unpinned
// block, resident or not. If a resident block grew, victims are evicted to
// stay within the capacity and appended to evicted; ErrNoRoom is returned
// when pinned blocks leave no room (the block stays resident).
func (s *Set) Update(b *Block, m Meta, now Time, evicted []*Block) ([]*Block, error) {
	old := b.Meta
	_, res := s.resident[b.ID]
	if !res {
		b.Meta = m
		if !m.Pinned {
			s.notify(b, old, now)
		}
		return evicted, nil
	}
	switch {
	case !old.Pinned && m.Pinned:
		s.pol.Evict(b, now)
	case old.Pinned:
		s.pinnedBytes -= old.Size
	}
	s.used += m.Size - old.Size
	b.Meta = m
	switch {
	case m.Pinned:
		s.pinnedBytes += m.Size
	case old.Pinned:
		s.pol.Admit(b, now)
	default:
		s.notify(b, old, now)
	}
	if s.used <= s.capacity {
		return evicted, nil
	}
	evicted, err := s.MakeRoom(0, now, evicted)
	if err != nil {
		return evicted, fmt.Errorf("updating block %d: %w", b.ID, err)
	}
	return evicted, nil
}

func (s *Set) notify(b *Block, old Meta, now Time) {
	if u, ok := s.pol.(Updater); ok {
		u.Update(b, old, now)
	}
}

// SetCapacity changes the capacity; if it shrinks below the bytes in use,
// victims are evicted and returned.
func (s *Set) SetCapacity(capacity int64, now Time, evicted []*Block) ([]*Block, error) {
	s.capacity = capacity
	return s.MakeRoom(0, now, evicted)
}
