package policy

import (
	"fmt"
	"hash/fnv"
	"testing"
)

// Golden digests of more seeded runs of hit_density and regret_tiered, the
// policies whose speed work (a pointer-free table, a ghost ring, cached
// ends of regret_tiered's class lists) must not change a decision: small
// caches whose ghosts expire and return often (the ring's tombstones and
// compaction), a sample of one, and regret_tiered ranked by density and by
// class, alone in a Set and fed as a lower tier (tierDigest), where it
// follows its ranking. As in TestVictimDigests, a change of a digest is a
// change of decisions.
func TestSpeedDigests(t *testing.T) {
	mixed := genTrace(21, traceShape{n: 80000, universe: 4000, unit: 1, pins: true, forgets: true})
	seqs := genTrace(22, traceShape{n: 80000, universe: 4000, unit: 1, forgets: true, seqs: true})
	cases := []struct {
		spec              string
		capMixed, capSeqs int
		mixed, seqs       uint64
	}{
		{"hit_density", 60, 30, 0x632bcbffd6820745, 0x57f66922a68ff9c},
		{"hit_density:horizon=1", 1500, 400, 0x7119cef41df3f48f, 0xe483d65aec98813e},
		{"hit_density:samples=1,horizon=3", 300, 100, 0x1de8aa0218cdefe7, 0xc699ad4d02dcaa96},
		{"hit_density:features=gap+reads,samples=64", 900, 250, 0xc901ea4d3f7f6e43, 0xc03c36e5080defd},
		{"regret_tiered", 600, 200, 0x7f2df83e1ef9516f, 0x9932dbf1634d2364},
		{"regret_tiered", 40, 20, 0x6e7f744d4051dd38, 0x5f596f59a46005be},
		{"regret_tiered:rank=class", 600, 200, 0x6723b7d78049bb16, 0x785cdad012e4c071},
		{"regret_tiered:reuse=300,memory=200,span=0.5", 1200, 300, 0xdecdcef6bb1078b0, 0xb3f516c210215fba},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d", c.spec, c.capMixed), func(t *testing.T) {
			gm, gs := digestRun(t, c.spec, c.capMixed, mixed), digestRun(t, c.spec, c.capSeqs, seqs)
			if gm != c.mixed || gs != c.seqs {
				t.Errorf("digests %#x, %#x; want %#x, %#x", gm, gs, c.mixed, c.seqs)
			}
		})
	}
	tiers := []struct {
		spec        string
		fast, low   int
		perTier     bool
		mixed, seqs uint64
	}{
		{"regret_tiered", 200, 800, false, 0x94f4205648d28bef, 0x9e79cd912a3ac035},
		{"regret_tiered", 100, 1000, true, 0x22eb466cd88c980d, 0xe1941c6bbc6f3560},
		{"regret_tiered:rank=class", 100, 400, true, 0xeb2812f5f48f81ca, 0x992b7b910b11c815},
		{"hit_density", 200, 800, false, 0xa6e9cd874fd22b14, 0xe7124d79d157a67a},
	}
	for _, c := range tiers {
		t.Run(fmt.Sprintf("tier/%s/%d/%v", c.spec, c.low, c.perTier), func(t *testing.T) {
			gm := tierDigest(t, c.spec, c.fast, c.low, c.perTier, mixed)
			gs := tierDigest(t, c.spec, c.fast/4, c.low/4, c.perTier, seqs)
			if gm != c.mixed || gs != c.seqs {
				t.Errorf("digests %#x, %#x; want %#x, %#x", gm, gs, c.mixed, c.seqs)
			}
		})
	}
}

// tierDigest replays ops through a fast LRU tier of fast blocks over a
// lower tier run by spec (capacity low blocks), which hears every access
// and admits the fast tier's victims (demotions, no access before them);
// a read of a block in the lower tier promotes it (it leaves right after
// its read). It returns the digest of the lower tier's hits and victims.
func tierDigest(t *testing.T, spec string, fast, low int, perTier bool, ops []traceOp) uint64 {
	t.Helper()
	p, err := New(spec, Env{CapacityBytes: int64(low), CapacityBlocks: low, Seed: 5, PerTier: perTier})
	if err != nil {
		t.Fatalf("new %s: %v", spec, err)
	}
	top := NewSet(NewLRU(), int64(fast))
	h := fnv.New64a()
	blocks := map[BlockID]*Block{}
	lowRes := map[*Block]bool{}
	var ev []*Block
	for i, op := range ops {
		now := Time(i + 1)
		b, live := blocks[op.id]
		if op.kind == opForget && live {
			top.Forget(b)
			p.Forget(b)
			delete(lowRes, b)
			delete(blocks, op.id)
			continue
		}
		if op.kind != opAccess {
			continue
		}
		if !live {
			m := op.meta
			m.Pinned = false
			b = &Block{ID: op.id, Meta: m}
			blocks[op.id] = b
		}
		p.Access(b, now)
		if top.Access(b, now) {
			continue
		}
		if lowRes[b] {
			fmt.Fprintf(h, "h%d;", op.id)
			p.Evict(b, now)
			delete(lowRes, b)
		}
		ev, err = top.Admit(b, now, ev[:0])
		if err != nil {
			t.Fatalf("op %d: admit %d: %v", i, op.id, err)
		}
		for _, d := range ev {
			for p.Len() >= low {
				v, ok := p.Victim(now)
				if !ok {
					t.Fatalf("op %d: no victim among %d", i, p.Len())
				}
				fmt.Fprintf(h, "v%d,", v.ID)
				p.Evict(v, now)
				delete(lowRes, v)
			}
			p.Admit(d, now)
			lowRes[d] = true
		}
	}
	return h.Sum64()
}
