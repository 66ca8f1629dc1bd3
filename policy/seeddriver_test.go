package policy

import (
	"slices"
	"testing"
)

// step is one event of a hand-worked sequence replayed through a Set.
type step struct {
	id   BlockID
	meta *Meta // replaces the block's metadata before the access when set
	// want lists the IDs evicted by this access, in order.
	want []BlockID
	// update applies meta through Set.Update instead of accessing.
	update bool
}

// acc is an access that must evict want.
func acc(id BlockID, want ...BlockID) step { return step{id: id, want: want} }

// accm is an access with new metadata that must evict want.
func accm(id BlockID, m Meta, want ...BlockID) step { return step{id: id, meta: &m, want: want} }

// upd changes the metadata of a block through Set.Update.
func upd(id BlockID, m Meta) step { return step{id: id, meta: &m, update: true} }

// replay runs steps through a Set of the given capacity in bytes. Blocks
// not given metadata are 1 byte, normal priority. Time advances by one per
// step.
func replay(t *testing.T, p Policy, capacity int64, steps []step) *Set {
	t.Helper()
	s := NewSet(p, capacity)
	blocks := map[BlockID]*Block{}
	for i, st := range steps {
		now := Time(i + 1)
		b, ok := blocks[st.id]
		if !ok {
			b = &Block{ID: st.id, Meta: Meta{Size: 1, Priority: PriorityNormal}}
			blocks[st.id] = b
		}
		var ev []*Block
		var err error
		switch {
		case st.update:
			ev, err = s.Update(b, *st.meta, now, nil)
		default:
			if st.meta != nil {
				b.Meta = *st.meta
			}
			if !s.Access(b, now) {
				ev, err = s.Admit(b, now, nil)
			}
		}
		if err != nil {
			t.Fatalf("step %d (block %d): %v", i+1, st.id, err)
		}
		if got := ids(ev); !slices.Equal(got, st.want) && (len(got) > 0 || len(st.want) > 0) {
			t.Fatalf("step %d (block %d): evicted %v, want %v", i+1, st.id, got, st.want)
		}
		if s.Used() > s.Capacity() {
			t.Fatalf("step %d: used %d over capacity %d", i+1, s.Used(), s.Capacity())
		}
	}
	return s
}

// mustNew builds a policy from a spec or fails the test.
func mustNew(t testing.TB, spec string, env Env) Policy {
	t.Helper()
	p, err := New(spec, env)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	return p
}
