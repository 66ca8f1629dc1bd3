package policy

import (
	"errors"
	"testing"
)

func blk(id BlockID, size int64, pinned bool) *Block {
	return &Block{ID: id, Meta: Meta{Size: size, Pinned: pinned}}
}

func TestSetAdmitEvictsLRU(t *testing.T) {
	s := NewSet(NewLRU(), 300)
	a, b, c, d := blk(1, 100, false), blk(2, 100, false), blk(3, 100, false), blk(4, 150, false)
	var ev []*Block
	var err error
	for i, x := range []*Block{a, b, c} {
		if ev, err = s.Admit(x, Time(i), ev); err != nil {
			t.Fatal(err)
		}
	}
	if len(ev) != 0 || s.Used() != 300 {
		t.Fatalf("after 3 admits: evicted %d, used %d", len(ev), s.Used())
	}
	s.Access(a, 3) // b is now least recent, then c
	ev, err = s.Admit(d, 4, ev[:0])
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[0] != b || ev[1] != c {
		t.Fatalf("evicted %v, want blocks 2 and 3", ids(ev))
	}
	if s.Used() != 250 || !s.Contains(1) || !s.Contains(4) || s.Contains(2) {
		t.Fatalf("used %d, residents wrong", s.Used())
	}
}

func TestSetPinned(t *testing.T) {
	s := NewSet(NewLRU(), 200)
	p, a, b := blk(1, 100, true), blk(2, 100, false), blk(3, 100, false)
	mustAdmit(t, s, p, 0)
	mustAdmit(t, s, a, 1)
	ev, err := s.Admit(b, 2, nil)
	if err != nil || len(ev) != 1 || ev[0] != a {
		t.Fatalf("admit b: evicted %v err %v, want block 2", ids(ev), err)
	}
	big := blk(4, 150, false)
	if _, err := s.Admit(big, 3, nil); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("block larger than unpinned room: err = %v, want ErrNoRoom", err)
	}
	if !s.Contains(3) {
		t.Fatal("a failed admit must not evict anything")
	}
	s.SetPinned(b, true, 4)
	if _, err := s.Admit(blk(5, 1, false), 5, nil); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("all pinned: err = %v, want ErrNoRoom", err)
	}
	s.SetPinned(p, false, 6)
	ev, err = s.Admit(blk(6, 100, false), 7, nil)
	if err != nil || len(ev) != 1 || ev[0] != p {
		t.Fatalf("after unpinning: evicted %v err %v, want block 1", ids(ev), err)
	}
}

func TestSetForgetAndCapacity(t *testing.T) {
	s := NewSet(NewLRU(), 300)
	a, b, c := blk(1, 100, false), blk(2, 100, true), blk(3, 100, false)
	mustAdmit(t, s, a, 0)
	mustAdmit(t, s, b, 1)
	mustAdmit(t, s, c, 2)
	s.Forget(b)
	if s.Used() != 200 || s.Len() != 2 {
		t.Fatalf("after forget: used %d len %d", s.Used(), s.Len())
	}
	ev, err := s.SetCapacity(100, 3, nil)
	if err != nil || len(ev) != 1 || ev[0] != a {
		t.Fatalf("shrink: evicted %v err %v, want block 1", ids(ev), err)
	}
}

func mustAdmit(t *testing.T, s *Set, b *Block, now Time) {
	t.Helper()
	if ev, err := s.Admit(b, now, nil); err != nil || len(ev) != 0 {
		t.Fatalf("admit %d: evicted %v err %v", b.ID, ids(ev), err)
	}
}

func ids(bs []*Block) []BlockID {
	out := make([]BlockID, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}
