package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/kvtier/kvtier/policy/trace"
)

// Streamable reports whether CompareStream can run policies and refs under
// cfg: blocks mode without prefetch, no Bélády reference (it needs every
// next use, so the whole trace), and a compact form of every policy (lru,
// fifo, sieve, arc, s3fifo). Anything else goes through Prepare and
// CompareWith.
func Streamable(cfg Config, policies []string, refs References) bool {
	if refs.Belady {
		return false
	}
	for _, p := range streamRuns(policies, refs) {
		c := cfg
		c.Policy = p
		if _, ok, err := newCEngine(&c); !ok || err != nil {
			return false
		}
	}
	return true
}

// streamRuns returns the policies CompareWith would run: the asked ones,
// then LRU if refs asks for it and it was not asked.
func streamRuns(policies []string, refs References) []string {
	runs := append([]string(nil), policies...)
	for _, p := range policies {
		if p == RefLRU {
			return runs
		}
	}
	if refs.LRU {
		runs = append(runs, RefLRU)
	}
	return runs
}

// CompareStream returns what CompareWith(cfg, policies, refs, t) returns
// for the trace t that Prepare(name, open) would make, when Streamable
// says so, without keeping the trace: one goroutine reads and numbers the
// records in batches while each policy replays them in its own goroutine
// (the policies in parallel), so memory holds the blocks' state and a
// few batches, never the records. A trace that cannot be read returns
// Prepare's error and no results.
func CompareStream(cfg Config, policies []string, refs References, name string, open Opener) ([]Result, error) {
	if !Streamable(cfg, policies, refs) {
		return nil, fmt.Errorf("%w: %s cannot be streamed: want blocks mode, no prefetch, no Bélády and policies "+
			"lru, fifo, sieve, arc or s3fifo", ErrBadConfig, name)
	}
	runs := streamRuns(policies, refs)
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: %s: no policy and no reference to run", ErrBadConfig, name)
	}
	engines := make([]*cengine, len(runs))
	for i, p := range runs {
		c := cfg
		c.Policy = p
		e, _, err := newCEngine(&c)
		if err != nil {
			return nil, err
		}
		e.name = p + " on " + name
		engines[i] = e
	}
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer closeReader(r)
	if err := replayStream(r, name, engines); err != nil {
		return nil, err
	}
	return streamResults(cfg, runs, len(policies), name, engines)
}

// streamResults returns the engines' results as CompareWith does: a
// policy whose run failed is left out and its error joined; a failed
// reference (a run past the asked policies) returns no rows.
func streamResults(cfg Config, runs []string, asked int, name string, engines []*cengine) ([]Result, error) {
	var out []Result
	var errs []error
	for i, e := range engines {
		if e.err != nil {
			if i >= asked {
				return nil, e.err
			}
			errs = append(errs, e.err)
			continue
		}
		r := e.finish()
		r.Policy, r.Workload, r.Mode = runs[i], name, ModeBlocks.String()
		r.Quant, r.Seed = cfg.Quant.String(), cfg.Seed
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// batchLen is the records of a batch, batches the batches in flight.
const (
	batchLen = 1 << 14
	batches  = 8
)

// batch is a run of records: each record's block key and then its dense
// index, its op with opPinned set when its metadata says pinned, and its
// tenant (tenants is empty while every tenant of the batch is 0).
type batch struct {
	keys    []uint64
	ids     []uint32
	ops     []uint8
	tenants []uint32
	pending atomic.Int32 // engines yet to replay it
	touched uint64       // number's reads ahead (see prefetch), kept so that they are not optimised away
}

// opPinned marks a pinned record in batch.ops.
const opPinned = 0x80

// add appends one record.
func (b *batch) add(rec *trace.Record) {
	op := uint8(rec.Op)
	if rec.Meta.Pinned {
		op |= opPinned
	}
	if rec.Meta.Tenant != 0 && len(b.tenants) < len(b.keys) {
		b.tenants = append(b.tenants, make([]uint32, len(b.keys)-len(b.tenants))...)
	}
	b.keys = append(b.keys, rec.Block)
	b.ops = append(b.ops, op)
	if len(b.tenants) > 0 || rec.Meta.Tenant != 0 {
		b.tenants = append(b.tenants, rec.Meta.Tenant)
	}
}

// number sets the dense index of every record's block.
func (b *batch) number(m *idMap) {
	b.ids = b.ids[:len(b.keys)]
	keys := b.keys
	var sink uint64
	for j, k := range keys {
		if j+prefetch < len(keys) {
			sink += m.slots[m.hashKey(keys[j+prefetch])].key
		}
		b.ids[j] = m.id(k)
	}
	b.touched = sink
}

// replay feeds the batch's records to e.
func (b *batch) replay(e *cengine) {
	tenants := b.tenants
	ids := b.ids
	var sink uint8
	for j, id := range ids {
		if j+prefetch < len(ids) {
			if k := ids[j+prefetch]; int(k) < len(e.s.b) {
				sink += e.s.b[k].flags
			}
		}
		op := b.ops[j]
		var tenant uint32
		if len(tenants) > 0 {
			tenant = tenants[j]
		}
		e.record(id, trace.Op(op&^opPinned), op&opPinned != 0, tenant)
	}
	e.touched += uint64(sink)
}

// replayStream reads r in batches on one goroutine while another numbers
// the blocks and replays each batch through every engine, one engine per
// goroutine when there are several. The two halves take about as long:
// parsing a CSV row, and looking up its block and replaying it.
func replayStream(r trace.Reader, name string, engines []*cengine) error {
	free := make(chan *batch, batches)
	for range batches {
		free <- &batch{keys: make([]uint64, 0, batchLen), ids: make([]uint32, 0, batchLen),
			ops: make([]uint8, 0, batchLen)}
	}
	read := make(chan *batch, batches)
	errc := make(chan error, 1)
	go func() {
		errc <- readBatches(r, name, free, read)
		close(read)
	}()
	ids := newIDMap(1 << 16)
	if len(engines) == 1 {
		for b := range read {
			b.number(ids)
			engines[0].replay(b)
			free <- b
		}
		return <-errc
	}
	chans := make([]chan *batch, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
		chans[i] = make(chan *batch, batches)
		wg.Go(func() {
			for b := range chans[i] {
				e.replay(b)
				if b.pending.Add(-1) == 0 {
					free <- b
				}
			}
		})
	}
	for b := range read {
		b.number(ids)
		b.pending.Store(int32(len(chans)))
		for _, c := range chans {
			c <- b
		}
	}
	for _, c := range chans {
		close(c)
	}
	wg.Wait()
	return <-errc
}

// readBatches reads every record of r into batches taken from free and
// sends each full one to out.
func readBatches(r trace.Reader, name string, free, out chan *batch) error {
	records := 0
	b := <-free
	b.keys, b.ops, b.tenants = b.keys[:0], b.ops[:0], b.tenants[:0]
	defer func() {
		if len(b.keys) > 0 {
			out <- b
		}
	}()
	for {
		rec, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading trace %s: %w", name, err)
		}
		if records == math.MaxUint32-1 {
			return fmt.Errorf("%w: trace %s has more than 2^32 records", ErrBadConfig, name)
		}
		if rec.Op >= 1<<(32-opShift) {
			return fmt.Errorf("%w: trace %s record %d: op %d", ErrBadConfig, name, records+1, rec.Op)
		}
		records++
		b.add(&rec)
		if len(b.keys) == batchLen {
			out <- b
			b = <-free
			b.keys, b.ops, b.tenants = b.keys[:0], b.ops[:0], b.tenants[:0]
		}
	}
}

// prefetch is how many records ahead number and replay read the memory a
// record will need, so that its cache misses overlap the work before it.
const prefetch = 16
