package policy

import (
	"slices"
	"testing"
)

// unitDriver replays accesses of unit-size blocks through a Set, as the
// simulator does: Access, then Admit on a miss.
type unitDriver struct {
	t      *testing.T
	s      *Set
	blocks map[BlockID]*Block
	now    Time
}

func newUnitDriver(t *testing.T, p Policy, capacity int) *unitDriver {
	return &unitDriver{t: t, s: NewSet(p, int64(capacity)), blocks: map[BlockID]*Block{}}
}

func (d *unitDriver) block(id BlockID) *Block {
	b, ok := d.blocks[id]
	if !ok {
		b = &Block{ID: id, Meta: Meta{Size: 1, Priority: PriorityNormal}}
		d.blocks[id] = b
	}
	return b
}

// access replays one access and returns the IDs it evicted.
func (d *unitDriver) access(id BlockID) []BlockID {
	d.t.Helper()
	b := d.block(id)
	d.now++
	if d.s.Access(b, d.now) {
		return nil
	}
	ev, err := d.s.Admit(b, d.now, nil)
	if err != nil {
		d.t.Fatalf("admit %d: %v", id, err)
	}
	return ids(ev)
}

// run replays accesses and returns every evicted ID in order.
func (d *unitDriver) run(idList ...BlockID) []BlockID {
	d.t.Helper()
	var out []BlockID
	for _, id := range idList {
		out = append(out, d.access(id)...)
	}
	return out
}

// expectEvicted replays one access and fails unless it evicted want.
func (d *unitDriver) expectEvicted(id BlockID, want ...BlockID) {
	d.t.Helper()
	if got := d.access(id); !slices.Equal(got, want) {
		d.t.Fatalf("step %d: access %d evicted %v, want %v", d.now, id, got, want)
	}
}

// idsOf returns the IDs of the blocks in l from the front (newest) back.
func idsOf(l *list) []BlockID {
	var out []BlockID
	for n := l.front(); n != nil; n = n.next {
		if n == &l.root {
			break
		}
		out = append(out, n.b.ID)
	}
	return out
}
