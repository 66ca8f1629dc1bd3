package trace

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kvtier/kvtier/policy"
)

// Op is what a record says happened to a block.
type Op uint8

// Record operations.
const (
	// OpAccess is a read or write of a block.
	OpAccess Op = iota
	// OpFree says the block was freed; it will not be accessed again
	// under the same key unless it is allocated anew.
	OpFree
	// OpUpdate changes a block's metadata (class, priority, refcount,
	// pinned) without accessing it.
	OpUpdate
)

// Record is one event of a trace.
type Record struct {
	Op    Op     // what happened: access, free or update
	Time  int64  // logical step (synthetic) or trace time in ns
	Block uint64 // block key, unique within the trace
	Write bool   // a write (for example a decode append) rather than a read
	// Meta carries the KV semantics of the block. Meta.Size is the block's
	// size in bytes at fp16 (2 bytes a scalar); a replayer that models
	// quantisation scales it. A Size of 0 means the replayer's default.
	Meta policy.Meta
}

// Reader yields records in time order. Next returns io.EOF at the end of the
// trace; any other error names the source and position.
type Reader interface {
	Next() (Record, error)
}

// Closer is a Reader backed by a file.
type Closer interface {
	Reader
	Close() error
}

var opNames = [...]string{OpAccess: "access", OpFree: "free", OpUpdate: "update"}

// String returns the op's name in trace files: access, free or update.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// ParseOp parses an op name as printed by Op.String.
func ParseOp(s string) (Op, error) {
	for i, n := range opNames {
		if n == s {
			return Op(i), nil
		}
	}
	return 0, fmt.Errorf("unknown op %q (want access, free or update)", s)
}

// Writer writes records to a trace file. Records are buffered: Flush
// writes them out, Close flushes and closes the underlying writer if it
// is an io.Closer.
type Writer interface {
	Write(Record) error
	Flush() error
	Close() error
}

// Copy writes every record of r to w, flushes w and returns the number of
// records copied.
func Copy(w Writer, r Reader) (int64, error) {
	var n int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, w.Flush()
		}
		if err != nil {
			return n, err
		}
		if err := w.Write(rec); err != nil {
			return n, err
		}
		n++
	}
}
