package sim

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// freeDecodeTiers is the cxl preset with 300 blocks of 512 tokens of
// Llama-2-70B in the fast tier, so the planner promotes and demotes every
// epoch of the Mooncake trace.
func freeDecodeTiers(t *testing.T) Hierarchy {
	t.Helper()
	h, err := NewHierarchy("cxl", "constrained")
	if err != nil {
		t.Fatal(err)
	}
	h.Tiers[0].Capacity = 300 * 512 * trace.KVBytesLlama2_70B
	return h
}

// TestTieringFreeDecodeMooncake replays the start of the embedded Mooncake
// trace with decode blocks freed in tiering mode through every policy the
// planner takes. A block sampled and then freed within one epoch used to
// stay among the planner's promotion candidates, so the epoch planned a
// move of an untracked block and Done failed ("completing move of block
// 423: unknown block").
func TestTieringFreeDecodeMooncake(t *testing.T) {
	n := 60000
	if testing.Short() {
		n = 15000
	}
	tr := mooncakeHead(t, n, trace.MooncakeOptions{FreeDecode: true})
	h := freeDecodeTiers(t)
	for _, info := range policy.List() {
		if info.Offline {
			continue
		}
		cfg := Config{Policy: info.Name, Hierarchy: h, Mode: ModeTiering, SampleRate: 0.5, Epoch: 64, Seed: 3}
		r, err := Run(cfg, tr)
		if err != nil {
			t.Errorf("%s: %v", info.Name, err)
			continue
		}
		if r.Accesses != int64(tr.Accesses()) {
			t.Errorf("%s: %d accesses, trace has %d", info.Name, r.Accesses, tr.Accesses())
		}
		if r.Evictions == 0 {
			t.Errorf("%s: no demotion in %d epochs: the fast tier never filled", info.Name, r.Epochs)
		}
	}
}

// TestTieringFreeDecodeAccounting replays the whole Mooncake trace with
// decode blocks freed and checks that the planner and the simulator agree
// at the end: every live block is tracked in the tier the simulator put it
// in, every freed block is forgotten, no move is left pending, and the
// fast tier holds exactly the live fast blocks, within its capacity.
func TestTieringFreeDecodeAccounting(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the whole Mooncake trace; -short replays its start in TestTieringFreeDecodeMooncake")
	}
	tr, err := Prepare(MooncakeSampleName, MooncakeSample(trace.MooncakeOptions{FreeDecode: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{
		{Policy: "lru", Hierarchy: freeDecodeTiers(t), Mode: ModeTiering, Epoch: 16},
		{Policy: "arc", Hierarchy: freeDecodeTiers(t), Mode: ModeTiering, SampleRate: 0.5, Epoch: 64, Seed: 3},
	} {
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		s, err := newTiering(&cfg, tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.run(tr); err != nil {
			t.Fatalf("%s: %v", cfg.Policy, err)
		}
		var live, fastBytes int64
		for i := range s.blocks {
			x := &s.blocks[i]
			fast, tracked := s.pl.Fast(x.b.ID)
			if simTracked := x.tier >= 0; tracked != simTracked {
				t.Fatalf("%s: block %d tracked by the planner %v, by the simulator %v (tier %d)", cfg.Policy, i, tracked, simTracked, x.tier)
			}
			if !tracked {
				continue
			}
			live++
			if fast != (x.tier == 0) {
				t.Fatalf("%s: block %d fast in the planner %v, simulator tier %d", cfg.Policy, i, fast, x.tier)
			}
			if fast {
				fastBytes += x.b.Meta.Size
			}
		}
		st := s.pl.Stats()
		if st.Tracked != int(live) || st.FastBytes != fastBytes || st.PendingIn != 0 || st.PendingOut != 0 {
			t.Errorf("%s: planner %d tracked, %d fast bytes, pending %d in %d out; simulator %d live, %d fast bytes",
				cfg.Policy, st.Tracked, st.FastBytes, st.PendingIn, st.PendingOut, live, fastBytes)
		}
		if st.FastBytes > s.fastCap {
			t.Errorf("%s: %d fast bytes over the capacity %d", cfg.Policy, st.FastBytes, s.fastCap)
		}
		if live == int64(len(s.blocks)) || s.res.Evictions == 0 {
			t.Errorf("%s: %d of %d blocks live, %d demotions: the replay freed or demoted nothing",
				cfg.Policy, live, len(s.blocks), s.res.Evictions)
		}
		t.Logf("%s: %d accesses, %d blocks (%d live at the end), %d epochs, %d demotions, fast hit ratio %.3f",
			cfg.Policy, s.res.Accesses, len(s.blocks), live, s.res.Epochs, s.res.Evictions, s.res.FastHitRatio)
	}
}
