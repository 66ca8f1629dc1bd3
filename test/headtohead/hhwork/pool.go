package main

// pool maps trace hash ids to the arena's blocks (slots) with LRU
// replacement: a hash id seen before is a hit on its slot; a new one takes
// a free slot or the least recently used one.
type pool struct {
	slot  map[uint64]int // hash id -> slot
	owner []uint64       // slot -> hash id
	held  []bool         // slot holds a hash id
	last  []int64        // slot -> tick of its last use
	tick  int64
}

func newPool(slots int) *pool {
	return &pool{slot: map[uint64]int{}, owner: make([]uint64, slots),
		held: make([]bool, slots), last: make([]int64, slots)}
}

// get returns the slot of id and whether it was there already (a hit).
// On a miss the slot returned now holds id; its old id, if any, is gone.
func (p *pool) get(id uint64) (slot int, hit bool) {
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
func (p *pool) victim() int {
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
