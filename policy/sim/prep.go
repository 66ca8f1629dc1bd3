package sim

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/kvtier/kvtier/policy/trace"
)

// DefaultBlockBytes is the fp16 size of a block whose record gives none:
// 2048 scalars of 2 bytes, the seed study's page.
const DefaultBlockBytes = 4096

// cacheLimit is the largest trace (in records) kept in memory; longer
// traces are re-read from their source for every run.
const cacheLimit = 1 << 20

// never is the next-access index of a block not accessed again.
const never = math.MaxUint32

// Opener opens a fresh reader of the same trace; every call must yield the
// same records.
type Opener func() (trace.Reader, error)

// Trace is a trace prepared for replay: a pre-pass numbered its blocks
// densely and computed, for every access, the index of the next access to
// the same block (what Bélády needs in Block.Next). A Trace is read-only
// and may be shared by concurrent runs.
type Trace struct {
	Name     string
	open     Opener
	records  []trace.Record // the whole trace when short enough
	dense    []uint32       // block index of each record
	next     []uint32       // per record: index (in accesses) of the next access of its block
	keys     []uint64       // block key of each dense index
	accesses int
}

// Records returns the number of records.
func (t *Trace) Records() int { return len(t.dense) }

// Accesses returns the number of access records.
func (t *Trace) Accesses() int { return t.accesses }

// Blocks returns the number of distinct blocks.
func (t *Trace) Blocks() int { return len(t.keys) }

// Prepare reads the trace once. open is called again for each replay of a
// trace too long to keep in memory.
func Prepare(name string, open Opener) (*Trace, error) {
	r, err := open()
	if err != nil {
		return nil, fmt.Errorf("opening trace %s: %w", name, err)
	}
	defer closeReader(r)
	t := &Trace{Name: name, open: open}
	index := map[uint64]uint32{}
	var steps []uint32 // access index of each record (accesses only)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading trace %s: %w", name, err)
		}
		if len(t.dense) == math.MaxUint32-1 {
			return nil, fmt.Errorf("%w: trace %s has more than 2^32 records", ErrBadConfig, name)
		}
		id, ok := index[rec.Block]
		if !ok {
			id = uint32(len(t.keys))
			index[rec.Block] = id
			t.keys = append(t.keys, rec.Block)
		}
		t.dense = append(t.dense, id)
		if rec.Op == trace.OpAccess {
			steps = append(steps, uint32(t.accesses))
			t.accesses++
		} else {
			steps = append(steps, never)
		}
		if t.records != nil || len(t.dense) == 1 {
			if len(t.dense) <= cacheLimit {
				t.records = append(t.records, rec)
			} else {
				t.records = nil
			}
		}
	}
	// Backward pass: next access of the same block.
	t.next = make([]uint32, len(t.dense))
	last := make([]uint32, len(t.keys))
	for i := range last {
		last[i] = never
	}
	for i := len(t.dense) - 1; i >= 0; i-- {
		id := t.dense[i]
		t.next[i] = last[id]
		if steps[i] != never {
			last[id] = steps[i]
		}
	}
	return t, nil
}

func closeReader(r trace.Reader) {
	if c, ok := r.(io.Closer); ok {
		_ = c.Close()
	}
}

// replay calls f for every record in order with its dense block index and
// the access index of its block's next access.
func (t *Trace) replay(f func(i int, rec *trace.Record, id uint32, next uint32)) error {
	if t.records != nil {
		for i := range t.records {
			f(i, &t.records[i], t.dense[i], t.next[i])
		}
		return nil
	}
	r, err := t.open()
	if err != nil {
		return fmt.Errorf("reopening trace %s: %w", t.Name, err)
	}
	defer closeReader(r)
	for i := range t.dense {
		rec, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("replaying trace %s at record %d: %w", t.Name, i+1, err)
		}
		if rec.Block != t.keys[t.dense[i]] {
			return fmt.Errorf("replaying trace %s at record %d: %w: block %d, first read %d",
				t.Name, i+1, ErrBadConfig, rec.Block, t.keys[t.dense[i]])
		}
		f(i, &rec, t.dense[i], t.next[i])
	}
	return nil
}
