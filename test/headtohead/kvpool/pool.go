// Package kvpool is the trace replay's KV pool: Mooncake hash ids mapped
// to a fixed number of block slots with LRU replacement. The guest workload
// replays through it, and the runner replays the same accesses through
// kvtier's simulator to compare its prediction with the guest's placement.
package kvpool

import (
	"errors"
	"fmt"
	"io"

	"github.com/kvtier/kvtier/policy/trace"
)

// Pool maps trace hash ids to the arena's blocks (slots) with LRU
// replacement: a hash id seen before is a hit on its slot; a new one takes
// a free slot or the least recently used one.
type Pool struct {
	slot  map[uint64]int // hash id -> slot
	owner []uint64       // slot -> hash id
	held  []bool         // slot holds a hash id
	last  []int64        // slot -> tick of its last use
	tick  int64
}

// New returns a pool of slots empty slots.
func New(slots int) *Pool {
	return &Pool{slot: map[uint64]int{}, owner: make([]uint64, slots),
		held: make([]bool, slots), last: make([]int64, slots)}
}

// Get returns the slot of id and whether it was there already (a hit).
// On a miss the slot returned now holds id; its old id, if any, is gone.
func (p *Pool) Get(id uint64) (slot int, hit bool) {
	p.tick++
	if s, ok := p.slot[id]; ok {
		p.last[s] = p.tick
		return s, true
	}
	s := p.victim()
	if p.held[s] {
		delete(p.slot, p.owner[s])
	}
	p.owner[s], p.held[s], p.last[s] = id, true, p.tick
	p.slot[id] = s
	return s, false
}

// victim returns the first free slot, else the least recently used.
func (p *Pool) victim() int {
	best := 0
	for s := range p.held {
		if !p.held[s] {
			return s
		}
		if p.last[s] < p.last[best] {
			best = s
		}
	}
	return best
}

// Access is one replayed prompt block: the slot read and whether the hash
// id was already in the pool.
type Access struct {
	ID   uint64
	Slot int
	Hit  bool
}

// Replay runs the first limit prompt block reads of r (all for limit <= 0)
// through a pool of slots, as the guest workload does.
func Replay(r trace.Reader, slots, limit int) ([]Access, error) {
	p := New(slots)
	var out []Access
	for limit <= 0 || len(out) < limit {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("replaying the trace: %w", err)
		}
		slot, hit := p.Get(rec.Block)
		out = append(out, Access{ID: rec.Block, Slot: slot, Hit: hit})
	}
	return out, nil
}
