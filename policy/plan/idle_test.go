package plan

import (
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// TestIdle: a block is idle once slow, unpinned, without a pending move,
// unseen for coldEpochs epochs and out of its cooldown.
func TestIdle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config // Cooldown 1000 unless set
		setup  func(h *harness)
		epochs int
		want   bool
	}{
		{name: "slow, unseen", epochs: coldEpochs + 1, want: true},
		{name: "slow, tracked too recently", epochs: coldEpochs},
		{name: "fast", setup: func(h *harness) { h.track(2, 0, 100, true) }, epochs: coldEpochs + 1},
		{name: "pinned", setup: func(h *harness) {
			h.track(2, 0, 100, false, func(m *policy.Meta) { m.Pinned = true })
		}, epochs: coldEpochs + 1},
		{name: "sampled lately", setup: func(h *harness) {
			h.doneAll(h.plan())
			h.access(1)
		}, epochs: coldEpochs},
		{name: "demoted within cooldown", setup: func(h *harness) {
			h.track(2, 0, 100, true)
			h.p.SetFastLimit(1) // no room: the next plan demotes block 2
		}, epochs: coldEpochs + 1},
		{name: "demoted, cooldown over", setup: func(h *harness) {
			h.track(2, 0, 100, true)
			h.p.SetFastLimit(1)
			h.doneAll(h.plan())
			h.now += 1000
		}, epochs: coldEpochs + 1, want: true},
		{name: "within a longer reuse window", cfg: Config{Reuse: 12}, epochs: coldEpochs + 1},
		{name: "after a longer reuse window", cfg: Config{Reuse: 12}, epochs: 14, want: true},
		// Sampled 1000 times with decay 0.9 and promotions held: after 20
		// epochs it is quiet long enough but its heat (about 120) is not
		// gone; after 130 (about 0.001) it is.
		{name: "heat left", cfg: Config{Decay: 0.9}, setup: heated, epochs: 20},
		{name: "heat gone", cfg: Config{Decay: 0.9}, setup: heated, epochs: 130, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			if cfg.Cooldown == 0 {
				cfg.Cooldown = 1000
			}
			h := newHarness(t, cfg)
			h.track(1, 0, 100, false)
			id := policy.BlockID(1)
			if tc.setup != nil {
				tc.setup(h)
				if h.p.Stats().Tracked > 1 {
					id = policy.BlockID(h.p.Stats().Tracked)
				}
			}
			for range tc.epochs {
				h.doneAll(h.plan())
			}
			if got := h.p.Idle(id, h.now); got != tc.want {
				t.Errorf("Idle(%d) = %v after %d epochs, want %v", id, got, tc.epochs, tc.want)
			}
		})
	}
	h := newHarness(t, Config{})
	if h.p.Idle(9, 0) {
		t.Error("an untracked block is idle")
	}
}

// heated samples block 1 a thousand times and holds promotions, so it
// stays slow with heat.
func heated(h *harness) {
	h.doneAll(h.plan())
	if err := h.p.Access(1, 1000, h.now); err != nil {
		h.t.Fatal(err)
	}
	h.p.SetHold(Hold{Promote: true})
}
