package plan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// twin is a region of n fast blocks of one tenant tracked two ways: one
// planner tracks every block (as the daemon did before pools), the other
// pools every block until it is accessed or demoted.
type twin struct {
	t        *testing.T
	each     *Planner
	pooled   *Planner
	pool     *Pool
	eachB    []policy.Block
	poolB    []*policy.Block // nil while pooled
	next     int             // the pool's cursor
	now      policy.Time
	slowFrom int // blocks [slowFrom, n) are slow (tracked in both)
}

// Next gives the pooled planner the next block still pooled.
func (w *twin) Next() (*policy.Block, bool) {
	for ; w.next < w.slowFrom; w.next++ {
		if w.poolB[w.next] == nil {
			w.poolB[w.next] = w.block(w.next)
			return w.poolB[w.next], true
		}
	}
	return nil, false
}

// block is a fresh policy.Block for block i (100 bytes, tenant 0).
func (w *twin) block(i int) *policy.Block {
	return &policy.Block{ID: policy.BlockID(i), Meta: policy.Meta{Size: 100, Priority: policy.PriorityNormal, RefCount: 1}}
}

// newTwin tracks fast fast blocks and slow slow blocks in both planners
// (the fast ones pooled in the second).
func newTwin(t *testing.T, cfg Config, fast, slow int) *twin {
	w := &twin{t: t, slowFrom: fast, eachB: make([]policy.Block, fast+slow), poolB: make([]*policy.Block, fast+slow)}
	var err error
	if w.each, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if w.pooled, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if w.pool, err = w.pooled.OpenPool(w, w.block(0).Meta); err != nil {
		t.Fatal(err)
	}
	for i := range fast + slow {
		w.eachB[i] = *w.block(i)
		if err := w.each.Track(&w.eachB[i], i < fast, w.now); err != nil {
			t.Fatal(err)
		}
		if i < fast {
			w.pooled.AddToPool(w.pool, 100)
			continue
		}
		w.poolB[i] = w.block(i)
		if err := w.pooled.Track(w.poolB[i], false, w.now); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// access samples block i in both planners (the pooled one takes it out of
// the pool and tracks it first).
func (w *twin) access(i int) {
	if w.poolB[i] == nil {
		w.pooled.TakeFromPool(w.pool, 100)
		w.poolB[i] = w.block(i)
		if err := w.pooled.Track(w.poolB[i], true, w.now); err != nil {
			w.t.Fatal(err)
		}
	}
	for _, p := range []*Planner{w.each, w.pooled} {
		if err := p.Access(policy.BlockID(i), 2, w.now); err != nil {
			w.t.Fatal(err)
		}
	}
}

// epoch plans in both, checks the plans are the same, reports every move
// done and returns the plan.
func (w *twin) epoch(e int) *Plan {
	w.now += 10
	a, b := w.each.Plan(w.now), w.pooled.Plan(w.now)
	if !reflect.DeepEqual(moveIDs(a), moveIDs(b)) {
		w.t.Fatalf("epoch %d: tracking each block plans %v, pooling %v", e, moveIDs(a), moveIDs(b))
	}
	for _, p := range []*Planner{w.each, w.pooled} {
		if p.FastBytes() != w.each.FastBytes() {
			w.t.Fatalf("epoch %d: %d fast bytes pooled, %d tracked one by one", e, p.FastBytes(), w.each.FastBytes())
		}
	}
	for _, x := range []struct {
		p  *Planner
		pl *Plan
	}{{w.each, a}, {w.pooled, b}} {
		for _, m := range append(append([]Move{}, x.pl.Demote...), x.pl.Promote...) {
			if err := x.p.Done(m.Block.ID, m.Promote, true, w.now); err != nil {
				w.t.Fatal(err)
			}
		}
	}
	return a
}

// moveIDs lists a plan's demotions and promotions with their reasons.
func moveIDs(pl *Plan) []string {
	var out []string
	for _, m := range pl.Demote {
		out = append(out, fmt.Sprintf("-%d:%v", m.Block.ID, m.Reason))
	}
	for _, m := range pl.Promote {
		out = append(out, fmt.Sprintf("+%d", m.Block.ID))
	}
	return out
}

// TestPoolPlansAsTracked: with LRU, pooling the untouched fast blocks
// gives the plans that tracking every block gives: shedding an over-full
// tier, making room for promotions, keeping headroom, over 12 epochs of
// random samples of fast and slow blocks.
func TestPoolPlansAsTracked(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        Config
		fast, slow int
		reason     Reason // a reason of demotion the run must give
	}{
		{"over capacity", Config{Policy: "lru", Budget: Budget{FastBytes: 6000, MoveBlocks: 7}}, 100, 100, ReasonCapacity},
		{"room for promotions", Config{Policy: "lru", Budget: Budget{FastBytes: 30000, MoveBlocks: 12}}, 300, 100, ReasonCapacity},
		{"headroom", Config{Policy: "lru", Headroom: 0.2, Budget: Budget{FastBytes: 30000, MoveBlocks: 9}}, 300, 100, ReasonHeadroom},
		{"headroom, tier full", Config{Policy: "lru", Headroom: 0.2, Budget: Budget{FastBytes: 10000, MoveBlocks: 9}}, 100, 100, ReasonHeadroom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newTwin(t, tc.cfg, tc.fast, tc.slow)
			rng := rand.New(rand.NewPCG(1, 2))
			reasons, promoted := map[Reason]int{}, 0
			for e := range 12 {
				for range 15 {
					w.access(rng.IntN(tc.fast + tc.slow))
				}
				pl := w.epoch(e)
				for _, m := range pl.Demote {
					reasons[m.Reason]++
				}
				promoted += len(pl.Promote)
			}
			if reasons[tc.reason] == 0 || promoted == 0 {
				t.Errorf("%d promotions and no demotion for %v in the run (%v)", promoted, tc.reason, reasons)
			}
			if w.pool.Blocks() == 0 || w.pool.Blocks() == tc.fast {
				t.Errorf("%d blocks still pooled: the run did not exercise the pool", w.pool.Blocks())
			}
		})
	}
}

// TestPoolAccounting: a pool's blocks count in the tier and the tenant
// until taken out or the pool is closed; pinned metadata is refused.
func TestPoolAccounting(t *testing.T) {
	p, err := New(Config{Policy: "lru"})
	if err != nil {
		t.Fatal(err)
	}
	m := policy.Meta{Tenant: 3, Priority: policy.PriorityNormal, RefCount: 1}
	pl, err := p.OpenPool(nil, m)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		p.AddToPool(pl, 4096)
	}
	p.TakeFromPool(pl, 4096)
	st := p.Stats()
	if st.FastBytes != 4*4096 || len(st.Tenants) != 1 || st.Tenants[0].FastBlocks != 4 || st.Tenants[0].Blocks != 4 {
		t.Fatalf("4 pooled blocks of 4 KiB: %+v", st)
	}
	if err := p.DropTenant(3); !errors.Is(err, ErrTenantInUse) {
		t.Errorf("dropping the pool's tenant: %v, want ErrTenantInUse", err)
	}
	p.ClosePool(pl)
	p.ClosePool(pl) // twice is once
	if st := p.Stats(); st.FastBytes != 0 || st.Tenants[0].Blocks != 0 || st.Tenants[0].FastBlocks != 0 {
		t.Fatalf("after closing the pool: %+v", st)
	}
	if err := p.DropTenant(3); err != nil {
		t.Errorf("dropping the tenant after closing its pool: %v", err)
	}
	m.Pinned = true
	if _, err := p.OpenPool(nil, m); !errors.Is(err, ErrPinnedPool) {
		t.Errorf("a pool of pinned blocks: %v, want ErrPinnedPool", err)
	}
}

// seqSource gives the blocks first, first+1, ... of a pool.
type seqSource struct{ next, end int }

// Next gives the next block, with the metadata the pool was opened with.
func (s *seqSource) Next() (*policy.Block, bool) {
	if s.next == s.end {
		return nil, false
	}
	s.next++
	return &policy.Block{ID: policy.BlockID(s.next - 1), Meta: policy.Meta{Size: 100,
		Priority: policy.PriorityNormal, RefCount: 1}}, true
}

// TestPoolCases: pools still demoted after a reload that rebuilt the
// policies (the pool's bucket has no tracked block); a pool opened less
// than coldEpochs ago, or empty, does not keep headroom from older cold
// blocks tracked one by one.
func TestPoolCases(t *testing.T) {
	meta := policy.Meta{Priority: policy.PriorityNormal, RefCount: 1}
	t.Run("reload", func(t *testing.T) {
		h := newHarness(t, Config{})
		pool, err := h.p.OpenPool(&seqSource{0, 10}, meta)
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			h.p.AddToPool(pool, 100)
		}
		if err := h.p.Reconfigure(Config{Policy: "fifo"}, h.now); err != nil {
			t.Fatal(err)
		}
		h.p.SetFastLimit(500)
		if pl := h.plan(); len(pl.Demote) != 5 || pool.Blocks() != 5 {
			t.Fatalf("after a reload, a plan over the limit demotes %d, %d left pooled; want 5 and 5", len(pl.Demote), pool.Blocks())
		}
	})
	t.Run("young pool, headroom", func(t *testing.T) {
		h := newHarness(t, Config{Headroom: 0.2, Budget: Budget{FastBytes: 1000}})
		h.track(100, 0, 100, true) // old and cold by the time the pool opens
		for range coldEpochs + 1 {
			h.doneAll(h.plan())
		}
		for _, n := range []int{0, 8} { // an empty pool, then a young one
			pool, err := h.p.OpenPool(&seqSource{0, n}, meta)
			if err != nil {
				t.Fatal(err)
			}
			for range n {
				h.p.AddToPool(pool, 100)
			}
		}
		pl := h.plan()
		if d := ids(pl.Demote); len(d) != 1 || d[0] != 100 {
			t.Errorf("headroom demoted %v, want the old cold block 100 (the pools are young or empty)", d)
		}
	})
}
