package plan

import (
	"reflect"
	"slices"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// harness drives a planner with hand-made blocks.
type harness struct {
	t      *testing.T
	p      *Planner
	blocks map[policy.BlockID]*policy.Block
	now    policy.Time
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	if cfg.Policy == "" {
		cfg.Policy = "lru"
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, p: p, blocks: map[policy.BlockID]*policy.Block{}}
}

// track adds block id of tenant ten with size bytes; m may set more Meta.
func (h *harness) track(id policy.BlockID, ten uint32, size int64, fast bool, m ...func(*policy.Meta)) {
	h.t.Helper()
	b := &policy.Block{ID: id, Meta: policy.Meta{Size: size, Tenant: ten, Priority: policy.PriorityNormal, RefCount: 1}}
	for _, f := range m {
		f(&b.Meta)
	}
	h.blocks[id] = b
	h.now++
	if err := h.p.Track(b, fast, h.now); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) access(ids ...policy.BlockID) {
	h.t.Helper()
	for _, id := range ids {
		h.now++
		if err := h.p.Access(id, 1, h.now); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *harness) plan() *Plan {
	h.now++
	return h.p.Plan(h.now)
}

// doneAll reports every move of pl as successful.
func (h *harness) doneAll(pl *Plan) {
	h.t.Helper()
	for _, m := range append(slices.Clone(pl.Demote), pl.Promote...) {
		if err := h.p.Done(m.Block.ID, m.Promote, true, h.now); err != nil {
			h.t.Fatal(err)
		}
	}
}

func ids(ms []Move) []policy.BlockID {
	out := []policy.BlockID{}
	for _, m := range ms {
		out = append(out, m.Block.ID)
	}
	return out
}

func (h *harness) want(pl *Plan, demote, promote []policy.BlockID) {
	h.t.Helper()
	if d := ids(pl.Demote); !reflect.DeepEqual(d, demote) {
		h.t.Errorf("demote %v, want %v", d, demote)
	}
	if p := ids(pl.Promote); !reflect.DeepEqual(p, promote) {
		h.t.Errorf("promote %v, want %v", p, promote)
	}
}

func (h *harness) wantFast(id policy.BlockID, want bool) {
	h.t.Helper()
	if fast, ok := h.p.Fast(id); !ok || fast != want {
		h.t.Errorf("block %d fast=%v tracked=%v, want fast=%v", id, fast, ok, want)
	}
}

func pinned(m *policy.Meta)  { m.Pinned = true }
func lowPrio(m *policy.Meta) { m.Priority = policy.PriorityLow }
func refs(n int32) func(*policy.Meta) {
	return func(m *policy.Meta) { m.RefCount = n }
}

// Capacity 300, three fast blocks; two hot slow blocks need 200 bytes: the
// two least recently used fast blocks go, the hotter slow block ranks first.
