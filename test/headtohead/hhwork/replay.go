package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kvtier/kvtier/policy/trace"
	"github.com/kvtier/kvtier/test/headtohead/kvpool"
	"github.com/kvtier/kvtier/test/headtohead/result"
)

// replayWindow is the span of the replay's live read share series.
const replayWindow = 2 * time.Second

// replayer is the trace replay under way.
type replayer struct {
	w      *work
	pool   *kvpool.Pool
	places []*placement // per slot, made on first use
	rep    *result.Replay
	hitSum float64
	wins   []timedShare // reads within the last replayWindow
	next   time.Time    // next series point
}

type timedShare struct {
	t     time.Time
	share float64
}

// replay replays the Mooncake trace's prompt blocks as a KV pool over the
// arena's blocks: a hash id already in the pool is a read of its block, a
// new one overwrites the least recently used block with its content (a
// prefill) and reads it. Before each access it asks where the block's
// pages are, so the report has the share of reads served from node 0.
func (w *work) replay() error {
	f, err := os.Open(w.cfg.trace)
	if err != nil {
		return fmt.Errorf("trace replay: %w", err)
	}
	defer f.Close()
	rd := trace.NewMooncake(f, w.cfg.trace, trace.MooncakeOptions{NoDecode: true, NoRefCount: true})
	slots := w.cfg.slots
	if slots <= 0 || slots > w.a.blocks() {
		slots = w.a.blocks()
	}
	r := &replayer{w: w, pool: kvpool.New(slots), places: make([]*placement, slots),
		rep: &result.Replay{Trace: w.cfg.trace, Slots: slots, RatePerSec: w.cfg.rate}}
	w.rep.Replay = r.rep
	r.rep.StartNode0 = w.onNode0(slots)
	mig := migrated()
	w.smp.set(nil, "trace")
	logf("trace replay: %s into %d slots at %.0f blocks/s for %s", w.cfg.trace, slots, w.cfg.rate, w.cfg.replayTime)
	err = r.loop(rd)
	r.rep.Migrated = since(mig)
	r.finish()
	logf("trace replay: %d reads of %d requests, %d hits, %.3f of reads from node 0", r.rep.Reads, r.rep.Requests, r.rep.Hits, r.rep.Node0Share)
	return err
}

// onNode0 returns the blocks among the first n with most of their pages
// on node 0 now (none when the query fails; the failure is noted).
func (w *work) onNode0(n int) []int {
	out := []int{}
	for b := range n {
		s, err := newPlacement(w.a.pageList([]int{b})).node0Share()
		if w.note(err); err == nil && s > 0.5 {
			out = append(out, b)
		}
	}
	return out
}

// loop paces the reads at the configured rate until the replay's time is
// up or the trace ends.
func (r *replayer) loop(rd *trace.Mooncake) error {
	start := time.Now()
	r.next = start
	lastSeq, first := uint64(0), true
	for k := 0; time.Since(start) < r.w.cfg.replayTime; k++ {
		if due := start.Add(time.Duration(float64(k) / r.w.cfg.rate * float64(time.Second))); time.Until(due) > 0 {
			time.Sleep(time.Until(due))
		}
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("trace replay: %w", err)
		}
		if first || rec.Meta.Seq != lastSeq {
			lastSeq, first = rec.Meta.Seq, false
			r.rep.Requests++
		}
		r.access(rec.Block)
	}
	r.rep.Seconds = time.Since(start).Seconds()
	return nil
}

// access serves one hash id: where its block is, then the read (and on a
// miss the write before it).
func (r *replayer) access(id uint64) {
	slot, hit := r.pool.Get(id)
	if r.places[slot] == nil {
		r.places[slot] = newPlacement(r.w.a.pageList([]int{slot}))
	}
	share := r.w.share(r.places[slot])
	if hit {
		r.rep.Hits++
		r.hitSum += share
	} else {
		r.rep.Misses++
		r.w.a.write(slot, id)
	}
	r.w.readBlock(slot)
	r.rep.Reads++
	r.rep.Node0Share += share
	if share == 1 {
		r.rep.WholeBlockShare++
	}
	r.window(share)
}

// window keeps the reads of the last replayWindow and adds a series point
// every half second.
func (r *replayer) window(share float64) {
	now := time.Now()
	r.wins = append(r.wins, timedShare{now, share})
	for len(r.wins) > 0 && now.Sub(r.wins[0].t) > replayWindow {
		r.wins = r.wins[1:]
	}
	if now.Before(r.next) {
		return
	}
	r.next = now.Add(500 * time.Millisecond)
	var sum float64
	for _, x := range r.wins {
		sum += x.share
	}
	r.w.smp.add(result.Point{T: r.w.smp.now(), Phase: "trace", Share: sum / float64(len(r.wins))})
}

// finish turns the sums into shares.
func (r *replayer) finish() {
	if r.rep.Reads > 0 {
		r.rep.Node0Share /= float64(r.rep.Reads)
		r.rep.WholeBlockShare /= float64(r.rep.Reads)
	}
	if r.rep.Hits > 0 {
		r.rep.Node0HitShare = r.hitSum / float64(r.rep.Hits)
	}
}
