package sim

import (
	"reflect"
	"sync"
	"testing"
)

type moveRecorder struct {
	mu    sync.Mutex
	moves []Move
}

func (r *moveRecorder) Move(m Move) {
	r.mu.Lock()
	r.moves = append(r.moves, m)
	r.mu.Unlock()
}

// TestMoveLog: the log's evictions are the run's, its bytes moved between
// tiers are the run's bytes moved, replaying it gives tier 0's peak
// footprint, and logging changes no measure.
func TestMoveLog(t *testing.T) {
	kv, _ := NewHierarchy("kvlab", "constrained")
	tests := []struct {
		name string
		cfg  Config
	}{
		{"cache", Config{Policy: "lru", Hierarchy: kv}},
		{"cache regret", Config{Policy: "regret_aware", Hierarchy: kv, Seed: 2}},
		{"cache prefetch", Config{Policy: "arc", Hierarchy: kv, Prefetch: 2}},
		{"blocks", Config{Policy: "s3fifo", Mode: ModeBlocks, CapacityBlocks: 40}},
	}
	tr := prepared(t, randomTrace(5, 6000, 300, true))
	for _, tt := range tests {
		plain, err := Run(tt.cfg, tr)
		if err != nil {
			t.Fatal(err)
		}
		rec := &moveRecorder{}
		cfg := tt.cfg
		cfg.Moves = rec
		got, err := Run(cfg, tr)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, plain) {
			t.Errorf("%s: logging changed the result:\n%+v\n%+v", tt.name, got, plain)
		}
		evict, misses, moved, peak := tallyMoves(t, tt.name, rec.moves, cfg.Policy, tr.Name)
		if evict != got.Evictions || misses != got.Accesses-got.Hits[0] {
			t.Errorf("%s: log has %d evictions and %d misses, result %d and %d", tt.name, evict, misses, got.Evictions, got.Accesses-got.Hits[0])
		}
		if cfg.Mode == ModeCache && moved != got.BytesDemand+got.BytesPrefetch {
			t.Errorf("%s: log moved %d bytes, result %d", tt.name, moved, got.BytesDemand+got.BytesPrefetch)
		}
		if cfg.Mode == ModeCache && (len(got.PeakBytes) != len(kv.Tiers) || got.PeakBytes[0] != peak || peak > kv.Tiers[0].Capacity) {
			t.Errorf("%s: peak bytes %v, log's tier-0 peak %d (capacity %d)", tt.name, got.PeakBytes, peak, kv.Tiers[0].Capacity)
		}
		if cfg.Mode == ModeBlocks && got.PeakBytes != nil {
			t.Errorf("%s: peak bytes %v in blocks mode", tt.name, got.PeakBytes)
		}
	}
}

// tallyMoves counts a log's evictions and misses, the bytes it moved
// into and between tiers, and tier 0's peak footprint replayed from it;
// every move must name policy and trace.
func tallyMoves(t *testing.T, name string, moves []Move, pol, traceName string) (evict, misses, moved, peak int64) {
	t.Helper()
	var used int64
	for _, m := range moves {
		switch m.Reason {
		case MoveEvict:
			evict++
		case MoveMiss:
			misses++
		}
		if m.From >= 0 && m.To >= 0 {
			moved += m.Bytes
		} else if m.From < 0 && m.Reason == MoveMiss {
			moved += m.Bytes // a cold miss counts as moved in
		}
		if m.To == 0 {
			used += m.Bytes
		}
		if m.From == 0 {
			used -= m.Bytes
		}
		peak = max(peak, used)
		if m.Policy != pol || m.Trace != traceName {
			t.Fatalf("%s: move names %s on %s", name, m.Policy, m.Trace)
		}
	}
	return evict, misses, moved, peak
}

// TestMoveLogSkipsReferences: CompareWith's reference rows do not log.
func TestMoveLogSkipsReferences(t *testing.T) {
	kv, _ := NewHierarchy("kvlab", "medium")
	rec := &moveRecorder{}
	tr := prepared(t, randomTrace(6, 2000, 200, false))
	if _, err := CompareWith(Config{Hierarchy: kv, Moves: rec}, []string{"arc"}, AllReferences, tr); err != nil {
		t.Fatal(err)
	}
	for _, m := range rec.moves {
		if m.Policy != "arc" {
			t.Fatalf("a move of %s logged", m.Policy)
		}
	}
	if len(rec.moves) == 0 {
		t.Error("no moves logged")
	}
}
