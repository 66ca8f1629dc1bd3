package policy

import (
	"errors"
	"testing"
)

// recorder is an LRU that records the Update calls it receives.
type recorder struct {
	*LRU
	updates []Meta // old metadata of each Update
}

func (r *recorder) Update(_ *Block, old Meta, _ Time) { r.updates = append(r.updates, old) }

func TestSetUpdate(t *testing.T) {
	r := &recorder{LRU: NewLRU()}
	s := NewSet(r, 300)
	a, b, c := blk(1, 100, false), blk(2, 100, false), blk(3, 100, false)
	mustAdmit(t, s, a, 0)
	mustAdmit(t, s, b, 1)

	m := a.Meta
	m.Class = ClassThinkComplete
	if ev, err := s.Update(a, m, 2, nil); err != nil || len(ev) != 0 {
		t.Fatalf("class change: evicted %v err %v", ids(ev), err)
	}
	if len(r.updates) != 1 || r.updates[0].Class != ClassNone || a.Meta.Class != ClassThinkComplete {
		t.Fatalf("class change: updates %v, class %v", r.updates, a.Meta.Class)
	}

	// Pinning a resident block takes it out of the policy.
	m = a.Meta
	m.Pinned = true
	if _, err := s.Update(a, m, 3, nil); err != nil {
		t.Fatal(err)
	}
	if r.Len() != 1 || len(r.updates) != 1 {
		t.Fatalf("pin: policy holds %d blocks, %d updates; want 1 and 1", r.Len(), len(r.updates))
	}
	// Growing the pinned block evicts the only candidate, b.
	m.Size = 250
	ev, err := s.Update(a, m, 4, nil)
	if err != nil || len(ev) != 1 || ev[0] != b || s.Used() != 250 {
		t.Fatalf("grow pinned: evicted %v err %v used %d, want block 2 and 250", ids(ev), err, s.Used())
	}
	if _, err := s.Admit(c, 5, nil); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("admit beside a grown pinned block: err %v, want ErrNoRoom", err)
	}
	// Growing it past the capacity leaves nothing to evict.
	m.Size = 400
	ev, err = s.Update(a, m, 6, nil)
	if !errors.Is(err, ErrNoRoom) || len(ev) != 0 || s.Used() != 400 {
		t.Fatalf("grow past capacity: evicted %v err %v used %d, want ErrNoRoom", ids(ev), err, s.Used())
	}
	// Unpinning hands it back to the policy, which may then evict it.
	m.Pinned, m.Size = false, 100
	if _, err := s.Update(a, m, 7, nil); err != nil || r.Len() != 1 || s.Used() != 100 {
		t.Fatalf("unpin: err %v, policy holds %d, used %d", err, r.Len(), s.Used())
	}
	// A non-resident block's update reaches the policy too.
	m = b.Meta
	m.Priority = PriorityHigh
	if _, err := s.Update(b, m, 8, nil); err != nil || len(r.updates) != 2 {
		t.Fatalf("non-resident update: err %v, %d updates", err, len(r.updates))
	}
}
