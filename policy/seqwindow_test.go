package policy

import "testing"

// TestSeqWindowsBlockChangesSequence replays what the simulator does on the
// Mooncake trace: a shared prefix block, resident for one request, is read
// by the next request and arrives with that request's Seq (and possibly
// another Pos). The block must move to its new sequence; before the fix it
// stayed in the old sequence's window heap while leave looked it up under
// the new Seq, so Evict and Forget removed it from the wrong heap and
// panicked (index out of range in minHeap.remove).
func TestSeqWindowsBlockChangesSequence(t *testing.T) {
	for _, tt := range []struct {
		name, spec string
		steps      []step
	}{{
		name: "windowed_access",
		spec: "windowed_recency",
		steps: []step{
			accm(1, sq(1, 0, 1)),    // in seq 1's window
			accm(1, sq(2, 0, 1)),    // shared prefix read by request 2
			accm(2, sq(2, 1, 2)),    // seq 2 window: positions >= 0
			accm(3, sq(2, 2, 3)),    // >= 1: block 1 leaves the window
			accm(4, sq(3, 0, 1), 1), // so it is the victim
			accm(5, sq(3, 1, 2), 2), // every block in a window: LRU
		},
	}, {
		name: "windowed_update",
		spec: "windowed_recency",
		steps: []step{
			accm(1, sq(1, 0, 1)),
			upd(1, sq(2, 0, 1)), // the move arrives through Set.Update
			accm(2, sq(2, 1, 2)),
			accm(3, sq(2, 2, 3)),
			accm(4, sq(3, 0, 1), 1),
		},
	}, {
		name: "windowed_position",
		spec: "windowed_recency:window_min=1,window_frac=0",
		steps: []step{
			accm(1, sq(1, 1, 2)), // in the window (position 1 of 2)
			accm(2, sq(2, 0, 1)),
			accm(3, sq(3, 0, 1)),
			accm(1, sq(1, 0, 2)),    // same sequence, another position: outside
			accm(4, sq(4, 0, 1), 1), // so it goes, though 2 is less recent
		},
	}, {
		name: "streaming_access",
		spec: "streaming:inner=lru,sink=0,window_min=1,window_frac=0",
		steps: []step{
			accm(1, sq(1, 0, 1)),    // protected: seq 1's window
			accm(1, sq(2, 0, 1)),    // shared prefix read by request 2
			accm(2, sq(2, 1, 2)),    // seq 2's window moves on: 1 to LRU
			accm(3, sq(3, 0, 1)),    // protected
			accm(4, sq(3, 1, 2), 1), // 3 to LRU after 1: 1 is the oldest
		},
	}, {
		name: "streaming_into_sink",
		spec: "streaming:inner=lru,sink=1,window_min=1,window_frac=0",
		steps: []step{
			accm(1, sq(1, 1, 3)),      // outside the window: LRU
			accm(2, sq(1, 2, 3)),      // window: protected
			accm(1, sq(2, 0, 3)),      // now the sink of seq 2: protected
			accm(3, Meta{Size: 1}),    // no sequence: LRU
			accm(4, Meta{Size: 1}, 3), // 3 is the only unprotected block
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p := mustNew(t, tt.spec, Env{})
			s := replay(t, p, 3, tt.steps)
			// Freeing every block must leave no sequence state behind.
			for _, b := range s.resident {
				s.Forget(b)
			}
			if n := p.Len(); n != 0 {
				t.Errorf("Len = %d after freeing every block", n)
			}
			if w, _ := seqWindowsOf(p); len(w.seqs) != 0 {
				t.Errorf("%d sequences still tracked after freeing every block", len(w.seqs))
			}
		})
	}
}
