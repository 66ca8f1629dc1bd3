package policy

import (
	"errors"
	"testing"
)

// sq is the metadata of block pos of sequence seq, of length n.
func sq(seq uint64, pos, n int32) Meta { return Meta{Size: 1, Seq: seq, Pos: pos, SeqLen: n} }

func TestRecentWindowStart(t *testing.T) {
	w := recentWindow{Min: 2, Frac: 0.25}
	for _, tt := range []struct{ n, want int32 }{{0, -2}, {1, -1}, {2, 0}, {8, 6}, {9, 6}, {12, 9}, {100, 75}} {
		if got := w.start(tt.n); got != tt.want {
			t.Errorf("start(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}

func TestWindowed(t *testing.T) {
	steps := []step{
		accm(1, sq(1, 0, 1)), // window of seq 1 is positions >= -1
		accm(2, sq(1, 1, 2)), // >= 0
		accm(3, sq(1, 2, 3)), // >= 1: 1 leaves the window
		acc(4),               // no sequence: outside every window
		acc(1),
		accm(5, sq(1, 3, 4), 2), // >= 2: 2 leaves, and is the least recent outside
		accm(6, sq(2, 0, 1), 4), // then 4 (1 was touched after it)
		accm(7, sq(2, 1, 2), 1), // 1, the last block outside a window
		accm(8, sq(3, 0, 1), 3), // all in windows: least recent, 3
		acc(5),
		upd(5, sq(1, 3, 12)),    // seq 1 grew to 12 blocks: 5 leaves its window
		accm(9, sq(4, 0, 1), 5), // so it goes, though 6 is less recent
		accm(10, sq(4, 1, 2), 6),
	}
	replay(t, mustNew(t, "windowed_recency", Env{}), 4, steps)
}

func TestStreaming(t *testing.T) {
	spec := "streaming:inner=lru,sink=1,window_min=1,window_frac=0"
	steps := []step{
		accm(1, sq(1, 0, 1)), // sink
		accm(2, sq(1, 1, 2)), // recent window (the last block)
		accm(3, sq(1, 2, 3)), // 2 leaves the window: to LRU
		acc(4),
		accm(5, sq(1, 3, 4), 2), // 3 leaves the window; 2 is LRU's oldest
		acc(6, 4),
		acc(7, 3),
		acc(1),    // touching the sink changes nothing
		acc(8, 6), // 1 (sink) and 5 (window) are never chosen
		acc(9, 7),
		acc(10, 8),
	}
	replay(t, mustNew(t, spec, Env{}), 4, steps)

	// The protected prefix covers positions below max(sink, prefix).
	steps = []step{
		accm(1, sq(1, 0, 5)), accm(2, sq(1, 1, 5)), accm(3, sq(1, 2, 5)),
		accm(4, sq(1, 3, 5)), // outside the window (position 4 only)
		acc(5, 4),
		acc(6, 5),
	}
	replay(t, mustNew(t, "streaming:sink=1,prefix=3,window_min=1,window_frac=0", Env{}), 4, steps)
}

func TestStreamingAllProtected(t *testing.T) {
	s := NewSet(mustNew(t, "streaming", Env{}), 2)
	for i, m := range []Meta{sq(1, 0, 2), sq(1, 1, 2)} {
		mustAdmit(t, s, &Block{ID: BlockID(i), Meta: m}, Time(i))
	}
	_, err := s.Admit(&Block{ID: 9, Meta: Meta{Size: 1}}, 3, nil)
	if !errors.Is(err, ErrNoRoom) {
		t.Fatalf("admit with every block protected: err %v, want ErrNoRoom", err)
	}
	if s.Policy().Len() != 2 {
		t.Fatalf("Len = %d, want 2", s.Policy().Len())
	}
}

func TestStreamingParams(t *testing.T) {
	p, err := New("streaming:inner=regret_aware,weight=12,horizon=64,sink=2", Env{})
	if err != nil {
		t.Fatal(err)
	}
	st := p.(*Streaming)
	if c := st.Inner().(*Regret).cfg; c.Weight != 12 || c.Horizon != 64 || st.protected != 2 {
		t.Fatalf("inner config %+v, protected %d", c, st.protected)
	}
	for spec, want := range map[string]error{
		"streaming:inner=lru,weight=12": ErrBadParam,
		"streaming:inner=nope":          ErrUnknownPolicy,
		"streaming:sink=-1":             ErrBadParam,
		"streaming:window_frac=2":       ErrBadParam,
	} {
		if _, err := New(spec, Env{}); !errors.Is(err, want) {
			t.Errorf("New(%q): err %v, want %v", spec, err, want)
		}
	}
}

// TestStreamingForwardsUpdate checks that a class demotion reaches a
// wrapped tiered_classes.
func TestStreamingForwardsUpdate(t *testing.T) {
	tc := Meta{Size: 1, Class: ClassThinkComplete}
	steps := []step{acc(1), acc(2), acc(3), upd(3, tc), acc(4, 3)}
	replay(t, mustNew(t, "streaming:inner=tiered_classes", Env{}), 3, steps)
}
