package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden_plans.txt")

// goldenCase is one recorded sequence: a policy, a config and a seed of
// the random operations replayed.
type goldenCase struct {
	name string
	cfg  Config
	seed uint64
}

var goldenCases = []goldenCase{
	{"lru", Config{Policy: "lru", Budget: Budget{FastBytes: 96 << 12, DefaultTenantBytes: 40 << 12, MoveBlocks: 24}}, 1},
	{"lru-reuse-headroom", Config{Policy: "lru", Reuse: 2, Headroom: 0.1, Decay: 0.5, Cooldown: 3,
		Budget: Budget{FastBytes: 80 << 12, MoveBytes: 30 << 12}}, 2},
	{"arc", Config{Policy: "arc", PromoteMin: 2, Budget: Budget{FastBytes: 100 << 12,
		TenantBytes: map[uint32]int64{1: 20 << 12}, MovePages: 40}}, 3},
	{"s3fifo", Config{Policy: "s3fifo", PolicyTouches: 2, NoPromote: []policy.Class{policy.ClassThinkComplete},
		Budget: Budget{FastBytes: 64 << 12, MoveBlocks: 16}}, 4},
	{"regret_aware", Config{Policy: "regret_aware", Seed: 5, Budget: Budget{FastBytes: 90 << 12, MoveBlocks: 30}}, 5},
	{"tiered_classes", Config{Policy: "tiered_classes", Budget: Budget{FastBytes: 70 << 12, MoveBlocks: 20}}, 6},
}

// goldenRun replays c's operations and returns the digest of every
// plan, stats snapshot and error they produced.
// With recycle, every plan is handed back (Planner.Recycle) once its
// moves are reported, which must change nothing.
func goldenRun(t *testing.T, c goldenCase, recycle bool) string {
	t.Helper()
	p, err := New(c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &goldenReplay{p: p, rng: rand.New(rand.NewPCG(c.seed, 99)), h: sha256.New(),
		blocks: map[policy.BlockID]*policy.Block{}, cfg: c.cfg, recycle: recycle}
	for range 400 {
		r.step()
	}
	return hex.EncodeToString(r.h.Sum(nil))
}

// goldenReplay drives a planner with random operations and hashes what it
// answers.
type goldenReplay struct {
	p       *Planner
	rng     *rand.Rand
	h       hash.Hash
	blocks  map[policy.BlockID]*policy.Block
	ids     []policy.BlockID
	next    policy.BlockID
	now     policy.Time
	cfg     Config
	recycle bool // hand every plan back once its moves are reported
}

func (r *goldenReplay) logf(format string, a ...any) { fmt.Fprintf(r.h, format+"\n", a...) }

// meta returns random metadata.
func (r *goldenReplay) meta() policy.Meta {
	return policy.Meta{Size: int64(1+r.rng.IntN(3)) << 12, Tenant: uint32(r.rng.IntN(3)),
		Class: policy.Class(r.rng.IntN(4)), Priority: policy.Priority(r.rng.IntN(3)),
		Pinned: r.rng.IntN(25) == 0, RefCount: int32(1 + r.rng.IntN(6)), Pos: int32(r.rng.IntN(64))}
}

// pick returns a tracked (or recently untracked) block ID.
func (r *goldenReplay) pick() policy.BlockID {
	if len(r.ids) == 0 {
		return 12345
	}
	return r.ids[r.rng.IntN(len(r.ids))]
}

// step runs one random operation.
func (r *goldenReplay) step() {
	r.now += 1 + int64(r.rng.IntN(3))
	switch k := r.rng.IntN(100); {
	case k < 20:
		r.track()
	case k < 55:
		for range 1 + r.rng.IntN(20) {
			o := Observation{Count: uint32(r.rng.IntN(4)), Windows: uint32(r.rng.IntN(3)), Source: Source(r.rng.IntN(2))}
			r.logf("observe %v", r.p.Observe(r.pick(), o, r.now))
		}
	case k < 62:
		if id := r.pick(); r.blocks[id] != nil {
			r.logf("update %v", r.p.Update(id, r.meta(), r.now))
		}
	case k < 66:
		changed, err := r.p.SetTier(r.pick(), r.rng.IntN(2) == 0, r.now)
		r.logf("settier %v %v", changed, err)
	case k < 70:
		r.untrack()
	case k < 90:
		r.plan()
	default:
		r.knob(r.rng.IntN(5))
	}
}

func (r *goldenReplay) track() {
	for range 1 + r.rng.IntN(8) {
		r.next++
		b := &policy.Block{ID: r.next, Meta: r.meta()}
		r.blocks[b.ID] = b
		r.ids = append(r.ids, b.ID)
		r.logf("track %v", r.p.Track(b, r.rng.IntN(2) == 0, r.now))
	}
}

func (r *goldenReplay) untrack() {
	id := r.pick()
	r.logf("untrack %d %v", id, r.p.Untrack(id))
	if r.rng.IntN(2) == 0 && r.blocks[id] != nil { // track the ID again
		b := &policy.Block{ID: id, Meta: r.meta()}
		r.blocks[id] = b
		r.logf("retrack %v", r.p.Track(b, r.rng.IntN(2) == 0, r.now))
	}
}

// plan makes a plan, hashes it and reports its moves done, some failed
// and some never.
func (r *goldenReplay) plan() {
	pl := r.p.Plan(r.now)
	r.logf("plan %d shortage %d deferred %d events %v", pl.Epoch, pl.Shortage, pl.Deferred, pl.Events)
	for _, m := range pl.Order() {
		r.logf("move %d promote %v reason %v", m.Block.ID, m.Promote, m.Reason)
	}
	s := r.p.Stats()
	r.logf("stats %+v", s)
	for _, m := range pl.Order() {
		switch r.rng.IntN(15) {
		case 0, 1:
			continue // never reported
		case 2:
			r.logf("untrack %v", r.p.Untrack(m.Block.ID)) // the move is abandoned
		}
		r.logf("done %v", r.p.Done(m.Block.ID, m.Promote, r.rng.IntN(6) != 0, r.now))
	}
	if r.recycle {
		r.p.Recycle(pl)
	}
	for _, id := range r.ids[max(0, len(r.ids)-30):] {
		fast, tracked := r.p.Fast(id)
		r.logf("fast %d %v %v %v", id, fast, tracked, r.p.Pending(id))
	}
}

// knob changes a setting: the fast limit, the move cap, the holds, the
// config (policy or decay), or drops the tenants without blocks.
func (r *goldenReplay) knob(k int) {
	switch k {
	case 0:
		r.p.SetFastLimit(int64(40+r.rng.IntN(80)) << 12)
	case 1:
		r.p.SetMoveCap(int64(r.rng.IntN(40)) << 12)
	case 2:
		r.p.SetHold(Hold{Promote: r.rng.IntN(4) == 0, Demote: r.rng.IntN(4) == 0})
	case 3:
		cfg := r.cfg
		cfg.Policy = []string{r.cfg.Policy, "lru", "sieve"}[r.rng.IntN(3)]
		cfg.Decay = float64(r.rng.IntN(3)) / 4
		r.logf("reconfigure %v", r.p.Reconfigure(cfg, r.now))
	default:
		for ten := range uint32(4) {
			r.logf("drop %v", r.p.DropTenant(ten))
		}
	}
}

// TestGoldenPlans replays recorded sequences of random operations (every
// planner call, several policies and configs) and compares the digest of
// everything the planner answered with the one recorded in
// testdata/golden_plans.txt before the planner's state was made compact:
// its decisions must not change. -update-golden rewrites the file.
func TestGoldenPlans(t *testing.T) {
	path := filepath.Join("testdata", "golden_plans.txt")
	var got []string
	for _, c := range goldenCases {
		got = append(got, c.name+" "+goldenRun(t, c, false))
	}
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for i, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			if i >= len(want) || want[i] != got[i] {
				t.Errorf("plans differ from the recorded ones:\n got %s\nwant %s", got[i], want[min(i, len(want)-1)])
			}
		})
	}
}

// TestGoldenPlansRecycled replays the recorded sequences handing every
// plan back (Planner.Recycle): the plans reuse their predecessors' slices
// and must be the same as without.
func TestGoldenPlansRecycled(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := goldenRun(t, c, true), goldenRun(t, c, false); got != want {
				t.Errorf("recycled plans differ: digest %s, want %s", got, want)
			}
		})
	}
}
