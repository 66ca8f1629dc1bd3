package trace

import (
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
	Op    Op
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
