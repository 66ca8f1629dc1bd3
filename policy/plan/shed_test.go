package plan

import (
	"math/rand/v2"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// load is what the planner counts against the capacity and each quota:
// fast bytes plus pending promotions less pending demotions.
func (h *harness) load() (tier int64, tenants map[uint32]int64) {
	s := h.p.Stats()
	tenants = map[uint32]int64{}
	for _, t := range s.Tenants {
		tenants[t.Tenant] = t.FastBytes
	}
	return s.FastBytes + s.PendingIn - s.PendingOut, tenants
}

// checkNoPromotionOver fails if pl promotes while its tier or a promoted
// block's tenant is over budget once pl's moves are counted.
func (h *harness) checkNoPromotionOver(pl *Plan) {
	h.t.Helper()
	if len(pl.Promote) == 0 {
		return
	}
	cfg := h.p.Config()
	tier, _ := h.load()
	if c := cfg.Budget.FastBytes; c > 0 && tier > c {
		h.t.Errorf("epoch %d promotes %v into a tier at %d bytes of %d", pl.Epoch, ids(pl.Promote), tier, c)
	}
	for _, s := range h.p.Stats().Tenants {
		used := s.FastBytes
		for _, m := range pl.Promote {
			if m.Block.Meta.Tenant == s.Tenant {
				used += m.Block.Meta.Size
			}
		}
		for _, m := range pl.Demote {
			if m.Block.Meta.Tenant == s.Tenant {
				used -= m.Block.Meta.Size
			}
		}
		if s.Quota > 0 && used > s.Quota {
			for _, m := range pl.Promote {
				if m.Block.Meta.Tenant == s.Tenant {
					h.t.Errorf("epoch %d promotes block %d of tenant %d, at %d bytes of its quota %d",
						pl.Epoch, m.Block.ID, s.Tenant, used, s.Quota)
				}
			}
		}
	}
}

// epoch is one planned epoch of a hand-worked convergence.
type epoch struct {
	demote, promote []policy.BlockID
	reason          Reason // of every demotion
	shortage        int64
	deferred        int
	fast            int64 // tier bytes (or the tenant's, for quotas) after the moves
}

// A tier 500 bytes over its capacity of 300 (eight fast blocks of 100),
// with four slow blocks sampled every epoch and 200 bytes of migration per
// epoch: the overage goes first, in ceil(500/200) = 3 epochs, and nothing
// is promoted until then. Epoch 3 has 100 bytes left after shedding, too
// little for a promotion and the demotion that makes its room.
func TestShedCapacityBeforePromotions(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 300, MoveBytes: 200}})
	for id := policy.BlockID(1); id <= 8; id++ {
		h.track(id, 0, 100, true) // LRU order 1..8
	}
	for id := policy.BlockID(11); id <= 14; id++ {
		h.track(id, 0, 100, false)
	}
	steps := []epoch{
		{demote: []policy.BlockID{1, 2}, reason: ReasonCapacity, shortage: 500, deferred: 4, fast: 600},
		{demote: []policy.BlockID{3, 4}, reason: ReasonCapacity, shortage: 300, deferred: 4, fast: 400},
		{demote: []policy.BlockID{5}, reason: ReasonCapacity, shortage: 100, deferred: 4, fast: 300},
		// At capacity: one promotion and its victim use the budget.
		{demote: []policy.BlockID{6}, promote: []policy.BlockID{11}, reason: ReasonCapacity,
			shortage: 100, deferred: 3, fast: 300},
	}
	h.converge(steps, []policy.BlockID{11, 12, 13, 14}, 0)
}

// Tenant 1 holds 600 bytes against a quota of 200 while the tier has room
// and it keeps sampling a slow block; 200 bytes of migration per epoch.
// Its own blocks go in ceil(400/200) = 2 epochs, then one promotion an
// epoch with one own victim. Tenant 2 is never touched.
func TestShedQuotaBeforePromotions(t *testing.T) {
	h := newHarness(t, Config{Budget: Budget{FastBytes: 1000, MoveBytes: 200,
		TenantBytes: map[uint32]int64{1: 200}}})
	for id := policy.BlockID(1); id <= 6; id++ {
		h.track(id, 1, 100, true)
	}
	h.track(20, 2, 100, true)
	h.track(11, 1, 100, false)
	h.track(12, 1, 100, false)
	steps := []epoch{
		{demote: []policy.BlockID{1, 2}, reason: ReasonQuota, shortage: 400, deferred: 2, fast: 400},
		{demote: []policy.BlockID{3, 4}, reason: ReasonQuota, shortage: 200, deferred: 2, fast: 200},
		{demote: []policy.BlockID{5}, promote: []policy.BlockID{11}, reason: ReasonQuota,
			shortage: 100, deferred: 1, fast: 200},
	}
	h.converge(steps, []policy.BlockID{11, 12}, 1)
	h.wantFast(20, true)
}

// converge samples hot once before each plan, checks each plan against
// steps and reports every move done. fast is the tier's bytes when tenant
// is 0 and the tenant's otherwise.
func (h *harness) converge(steps []epoch, hot []policy.BlockID, tenant uint32) {
	h.t.Helper()
	for i, s := range steps {
		h.access(hot...)
		pl := h.plan()
		h.want(pl, s.demote, append([]policy.BlockID{}, s.promote...))
		h.checkNoPromotionOver(pl)
		for _, m := range pl.Demote {
			if m.Reason != s.reason {
				h.t.Errorf("epoch %d: block %d demoted for %v, want %v", i+1, m.Block.ID, m.Reason, s.reason)
			}
		}
		if pl.Shortage != s.shortage || pl.Deferred != s.deferred {
			h.t.Errorf("epoch %d: shortage %d deferred %d, want %d and %d", i+1, pl.Shortage, pl.Deferred,
				s.shortage, s.deferred)
		}
		h.doneAll(pl)
		tier, tenants := h.load()
		got := tier
		if tenant != 0 {
			got = tenants[tenant]
		}
		if got != s.fast {
			h.t.Errorf("epoch %d: %d fast bytes after the moves, want %d", i+1, got, s.fast)
		}
	}
}

// A tier or tenant over budget whose blocks cannot leave (pinned) gets no
// promotion even with budget to spare; a tenant within its quota still
// does.
func TestNoPromotionWhileOver(t *testing.T) {
	tests := []struct {
		name     string
		budget   Budget
		promote  []policy.BlockID
		deferred int
	}{
		{"tier", Budget{FastBytes: 200}, []policy.BlockID{}, 2},
		{"tenant", Budget{FastBytes: 1000, TenantBytes: map[uint32]int64{1: 200}}, []policy.BlockID{21}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{Budget: tt.budget})
			for id := policy.BlockID(1); id <= 3; id++ {
				h.track(id, 1, 100, true, pinned)
			}
			h.track(11, 1, 100, false)
			h.track(21, 2, 100, false)
			h.access(11, 11, 21)
			pl := h.plan()
			h.want(pl, []policy.BlockID{}, tt.promote)
			if pl.Deferred != tt.deferred {
				t.Errorf("deferred %d, want %d", pl.Deferred, tt.deferred)
			}
			h.checkNoPromotionOver(pl)
		})
	}
}

// The daemon's BenchmarkEpochDecision at the planner: 64 regions of 512
// blocks of 2 MiB, all fast as registered regions are, four tenants with
// 4 GiB quotas, 16 GiB of fast tier, 1 GiB of migration per 1 s epoch, and
// 5% of the blocks sampled each epoch from a Zipf distribution whose
// ranking moves every 8 epochs. The 48 GiB overage goes in 48 epochs; from
// then on the tier and every tenant stay within budget while promotions
// continue.
func TestShedDaemonScale(t *testing.T) {
	const regions, per, size, sec = 64, 512, 2 << 20, policy.Time(1e9)
	const n, capB, quota = regions * per, 16 << 30, 4 << 30
	p, err := New(Config{Policy: "lru", Decay: 0.5, Cooldown: 2 * sec, PromoteMin: 1, Budget: Budget{
		FastBytes: capB, TenantBytes: map[uint32]int64{0: quota, 1: quota, 2: quota, 3: quota},
		MoveBytes: 1 << 30, PageSize: 4096}})
	if err != nil {
		t.Fatal(err)
	}
	blocks := make([]policy.Block, n)
	for i := range blocks {
		r := i / per
		blocks[i] = policy.Block{ID: uint64(i), Meta: policy.Meta{Size: size, Tenant: uint32(r % 4),
			RefCount: int32(1 + r%3), Priority: policy.PriorityNormal}}
		if err := p.Track(&blocks[i], true, 0); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.1, 8, n-1)
	var perm []int
	converged, promoted := 0, 0
	for e := 1; e <= 128; e++ {
		now := policy.Time(e) * sec
		if e%8 == 1 {
			perm = rng.Perm(n)
		}
		counts := map[int]uint32{}
		for len(counts) < n*5/100 {
			counts[perm[zipf.Uint64()]]++
		}
		for b, c := range counts {
			if err := p.Access(uint64(b), c, now); err != nil {
				t.Fatal(err)
			}
		}
		pl := p.Plan(now)
		for _, m := range append(pl.Demote, pl.Promote...) {
			if err := p.Done(m.Block.ID, m.Promote, true, now); err != nil {
				t.Fatal(err)
			}
		}
		s := p.Stats()
		over := s.FastBytes > capB
		for _, ts := range s.Tenants {
			over = over || ts.FastBytes > quota
		}
		switch {
		case !over && converged == 0:
			converged = e
			t.Logf("epoch %d: %d MiB fast, every tenant within its quota", e, s.FastBytes>>20)
		case over && converged != 0:
			t.Fatalf("epoch %d: over budget again (%d MiB fast, tenants %+v)", e, s.FastBytes>>20, s.Tenants)
		case over && len(pl.Promote) > 0:
			t.Errorf("epoch %d: %d promotions while over budget", e, len(pl.Promote))
		}
		if converged != 0 {
			promoted += len(pl.Promote)
		}
	}
	if want := (64<<30 - capB) / (1 << 30); converged == 0 || converged > want {
		t.Fatalf("converged at epoch %d, want within %d epochs", converged, want)
	}
	if promoted == 0 {
		t.Errorf("no promotion in the %d epochs after convergence", 128-converged)
	}
	t.Logf("%d promotions in the %d epochs after convergence", promoted, 128-converged)
}
