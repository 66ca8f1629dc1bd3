package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/trace"
)

// DefaultBlockBytes is the fp16 size of a block whose record gives none:
// 2048 scalars of 2 bytes, the seed study's page.
const DefaultBlockBytes = 4096

// metaLimit is the most distinct metadata values a Trace keeps: past it,
// the trace is re-read from its source for every replay. A variable so
// that tests can lower it.
var metaLimit = 1 << 21

// never is the next-access index of a block not accessed again.
const never = math.MaxUint32

// A record's code packs its op (top bits) and the index of its metadata
// in Trace.metas.
const (
	opShift  = 30
	metaMask = 1<<opShift - 1
	// noMeta is the metadata index of a record re-read from its source:
	// it never equals a kept index.
	noMeta = math.MaxUint32
)

// Opener opens a fresh reader of the same trace; every call must yield the
// same records.
type Opener func() (trace.Reader, error)

// Trace is a trace prepared for replay: a pre-pass numbered its blocks
// densely. For every access, the index of the next access to the same
// block (what Bélády needs in Block.Next) is computed on the first replay
// of a policy that needs it (see NeedsNext), not before. A Trace also keeps the
// trace itself in a compact form: per record 12 bytes (block index, next
// access, op and metadata index) and each distinct metadata value once,
// so a replay indexes slices and a block whose metadata did not change is
// recognised by its index. Only a trace with more than 2^21 distinct
// metadata values is re-read from its source for every replay. A Trace is
// read-only and may be shared by concurrent runs.
type Trace struct {
	Name     string
	open     Opener
	dense    []uint32 // block index of each record
	nextOnce sync.Once
	next     []uint32 // per record: index (in accesses) of the next access of its block; nil until needed
	nextErr  error
	code     []uint32      // per record: op<<opShift | index in metas; nil when not kept
	metas    []policy.Meta // distinct metadata values
	keys     []uint64      // block key of each dense index
	accesses int
	maxSize  int64 // largest fp16 size of an accessed block
}

// Records returns the number of records.
func (t *Trace) Records() int { return len(t.dense) }

// Accesses returns the number of access records.
func (t *Trace) Accesses() int { return t.accesses }

// Blocks returns the number of distinct blocks.
func (t *Trace) Blocks() int { return len(t.keys) }

// MaxBlockBytes returns the fp16 size in bytes of the largest block the
// trace accesses (DefaultBlockBytes for a record that gives no size), 0
// for a trace without accesses. Config.Quant.Scale gives its size in the
// run's format.
func (t *Trace) MaxBlockBytes() int64 { return t.maxSize }

// kept reports whether the records are held in memory.
func (t *Trace) kept() bool { return t.code != nil }

// metaIndex numbers distinct metadata values during Prepare.
type metaIndex struct {
	t     *Trace
	index map[policy.Meta]uint32
	last  []uint32 // per block: index of its last metadata
	full  bool     // past metaLimit: nothing is kept
}

// of returns the index of m, seen on block id, or false once past the
// limit. A block's metadata usually repeats, so its last index is tried
// before the map.
func (mi *metaIndex) of(id uint32, m *policy.Meta) (uint32, bool) {
	if mi.full {
		return 0, false
	}
	for int(id) >= len(mi.last) {
		mi.last = append(mi.last, noMeta)
	}
	if l := mi.last[id]; l != noMeta && mi.t.metas[l] == *m {
		return l, true
	}
	i, ok := mi.index[*m]
	if !ok {
		if len(mi.t.metas) >= metaLimit {
			mi.full, mi.index, mi.last = true, nil, nil
			mi.t.code, mi.t.metas = nil, nil
			return 0, false
		}
		i = uint32(len(mi.t.metas))
		mi.t.metas = append(mi.t.metas, *m)
		mi.index[*m] = i
	}
	mi.last[id] = i
	return i, true
}

// Prepare reads the trace once. open is called again for each replay of a
// trace with too many distinct metadata values to keep. open's errors are
// returned as they are: they name the trace or workload (trace.OpenWith,
// trace.NewWorkload do), and a second "opening trace" would repeat it.
func Prepare(name string, open Opener) (*Trace, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer closeReader(r)
	t := &Trace{Name: name, open: open, code: []uint32{}}
	mi := metaIndex{t: t, index: map[policy.Meta]uint32{}}
	index := newIDMap(1 << 10)
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
		if rec.Op >= 1<<(32-opShift) {
			return nil, fmt.Errorf("%w: trace %s record %d: op %d", ErrBadConfig, name, len(t.dense)+1, rec.Op)
		}
		id := index.id(rec.Block)
		if int(id) == len(t.keys) {
			t.keys = append(t.keys, rec.Block)
		}
		t.dense = append(t.dense, id)
		if rec.Op == trace.OpAccess {
			t.accesses++
			size := rec.Meta.Size
			if size <= 0 {
				size = DefaultBlockBytes
			}
			t.maxSize = max(t.maxSize, size)
		}
		if m, ok := mi.of(id, &rec.Meta); ok {
			t.code = append(t.code, uint32(rec.Op)<<opShift|m)
		}
	}
	return t, nil
}

// nextUses returns, per record, the access index of the next access to
// its block, computing it on the first call: a backward pass over the
// records kept in memory, or over the ops of a re-read of the source.
func (t *Trace) nextUses() ([]uint32, error) {
	t.nextOnce.Do(func() {
		isAccess := func(i int) bool { return trace.Op(t.code[i]>>opShift) == trace.OpAccess }
		if !t.kept() {
			ops, err := t.readOps()
			if err != nil {
				t.nextErr = err
				return
			}
			isAccess = func(i int) bool { return ops[i] == trace.OpAccess }
		}
		next := make([]uint32, len(t.dense))
		last := make([]uint32, len(t.keys))
		for i := range last {
			last[i] = never
		}
		step := uint32(t.accesses)
		for i := len(t.dense) - 1; i >= 0; i-- {
			id := t.dense[i]
			next[i] = last[id]
			if isAccess(i) {
				step--
				last[id] = step
			}
		}
		t.next = next
	})
	return t.next, t.nextErr
}

// readOps re-reads the source of a trace not kept in memory for the op of
// every record.
func (t *Trace) readOps() ([]trace.Op, error) {
	ops := make([]trace.Op, 0, len(t.dense))
	err := t.replay(nil, func(op trace.Op, _, _, _ uint32, _ *policy.Meta) { ops = append(ops, op) })
	return ops, err
}

func closeReader(r trace.Reader) {
	if c, ok := r.(io.Closer); ok {
		_ = c.Close()
	}
}

// replay calls f for every record in order with its op, dense block index,
// the access index of its block's next access (from next, the result of
// nextUses; never when next is nil), its metadata and the metadata's
// index: equal indexes mean equal metadata, and a trace re-read from its
// source gives noMeta.
func (t *Trace) replay(next []uint32, f func(op trace.Op, id, next, mi uint32, m *policy.Meta)) error {
	if t.kept() {
		for i, c := range t.code {
			mi := c & metaMask
			f(trace.Op(c>>opShift), t.dense[i], nextAt(next, i), mi, &t.metas[mi])
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
		f(rec.Op, t.dense[i], nextAt(next, i), noMeta, &rec.Meta)
	}
	return nil
}

// nextAt returns next[i], or never when next is nil (no next uses computed).
func nextAt(next []uint32, i int) uint32 {
	if next == nil {
		return never
	}
	return next[i]
}
