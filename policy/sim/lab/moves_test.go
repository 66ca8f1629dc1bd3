package lab

import (
	"testing"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// moveRecorder keeps the moves of a run.
type moveRecorder struct{ moves []sim.Move }

func (r *moveRecorder) Move(m sim.Move) { r.moves = append(r.moves, m) }

// TestMoveLog checks that a run's move log accounts for what the run
// counted: its promotions into tier 0 are its misses (and prefetches), its
// moves out of a tier its evictions, and the bytes of the moves between
// tiers its bytes moved; logging changes no figure.
func TestMoveLog(t *testing.T) {
	h, err := sim.NewHierarchy("kvlab", "medium")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := trace.LabWorkload("adversarial_burst", trace.LabParams{Pages: 112, Length: 640, Burst: 14, Seed: 7,
		BytesPerScalar: 2})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		spec     string
		prefetch int
		model    Model
	}{
		{"lru", PolicyLRU, 0, Model{}},
		{"regret", PolicyRegret + ":weight=12,horizon=24", 0, Model{}},
		{"predictive with prefetch", PolicyPredictive, 2, Model{}},
		{"lru below", PolicyLRU, 0, Model{LRUBelow: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp, err := ParseSpec(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			c := Config{Scenario: "medium", Hierarchy: h, Trace: lt, Seed: 7, Spec: sp, Prefetch: tt.prefetch, Model: tt.model}
			plain, err := Run(c)
			if err != nil {
				t.Fatal(err)
			}
			rec := &moveRecorder{}
			c.Moves = rec
			logged, err := Run(c)
			if err != nil {
				t.Fatal(err)
			}
			if plain.MeanLatencyMs != logged.MeanLatencyMs || plain.Evictions != logged.Evictions {
				t.Fatalf("logging changed the run: %+v, %+v", plain, logged)
			}
			checkMoves(t, rec.moves, logged, tt.model.LRUBelow)
			if tt.prefetch > 0 && logged.PrefetchRequests == 0 {
				t.Error("no prefetch issued: the prefetch moves went unchecked")
			}
		})
	}
}

func checkMoves(t *testing.T, moves []sim.Move, r Result, lruBelow bool) {
	t.Helper()
	var intoFast, prefetched, out, bytes int64
	last := len(r.PeakBytes) - 1
	for _, m := range moves {
		if want, ok := wantReason(m, last, lruBelow); ok && m.Reason != want {
			t.Fatalf("move %+v: reason %v, want %v", m, m.Reason, want)
		}
		switch {
		case m.To == 0 && m.Reason == sim.MovePrefetch:
			prefetched++
		case m.To == 0:
			intoFast++
		}
		if m.From >= 0 && m.Reason != sim.MoveMiss && m.Reason != sim.MovePrefetch {
			out++
		}
		if m.From >= 0 && m.To >= 0 {
			bytes += m.Bytes
		}
		if m.Policy != r.Policy || m.Trace != "adversarial_burst/medium/fp16/seed=7" {
			t.Fatalf("move %+v: want policy %s and the run's name", m, r.Policy)
		}
	}
	if intoFast != r.Misses || out != r.Evictions || bytes != r.BytesMoved || prefetched != r.PrefetchRequests {
		t.Errorf("moves: %d into tier 0, %d prefetched, %d out of a tier, %d bytes; run: %d misses, %d evictions, %d bytes, %d prefetches",
			intoFast, prefetched, out, bytes, r.Misses, r.Evictions, r.BytesMoved, r.PrefetchRequests)
	}
}

// wantReason is the reason a move out of a tier must have: a drop out of
// the last tier, a cascade below tier 0 under LRUBelow, else the
// policy's evict; a move from outside the hierarchy is a miss. ok is false
// for moves into tier 0 (a miss or a prefetch, counted by checkMoves).
func wantReason(m sim.Move, last int, lruBelow bool) (sim.MoveReason, bool) {
	switch {
	case m.From < 0:
		return sim.MoveMiss, true
	case m.To == 0:
		return 0, false
	case m.From == last:
		return sim.MoveDrop, m.To == -1
	case m.From > 0 && lruBelow:
		return sim.MoveCascade, true
	}
	return sim.MoveEvict, true
}
