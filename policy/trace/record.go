package trace

import (
	"fmt"
	"math"

	"github.com/kvtier/kvtier/policy"
)

// Columns of kvtier's own trace formats (JSONL keys and CSV header names),
// in the order the writers emit them. time, block and op are required.
var Columns = []string{"op", "time", "block", "write", "tenant", "class", "priority", "pinned",
	"refcount", "lifetime", "seq", "pos", "seq_len", "max_len", "size"}

// check validates the fields of a decoded record and returns the name of
// the first bad one with what is wrong.
func check(r *Record) (string, error) {
	m := &r.Meta
	switch {
	case r.Op > OpUpdate:
		return "op", fmt.Errorf("unknown op %d", r.Op)
	case m.Priority > policy.PriorityHigh:
		return "priority", fmt.Errorf("%d out of range [0, 2]", m.Priority)
	case m.Class > policy.ClassOutputCritical:
		return "class", fmt.Errorf("unknown class %d", m.Class)
	case m.RefCount < 0:
		return "refcount", fmt.Errorf("%d is negative", m.RefCount)
	case math.IsNaN(m.Lifetime) || math.IsInf(m.Lifetime, 0):
		return "lifetime", fmt.Errorf("%v is not a finite number", m.Lifetime)
	case m.Pos < 0:
		return "pos", fmt.Errorf("%d is negative", m.Pos)
	case m.SeqLen < 0:
		return "seq_len", fmt.Errorf("%d is negative", m.SeqLen)
	case m.MaxLen < 0:
		return "max_len", fmt.Errorf("%d is negative", m.MaxLen)
	case m.Size < 0:
		return "size", fmt.Errorf("%d is negative", m.Size)
	}
	return "", nil
}

// order checks that records come in time order.
type order struct {
	last    int64
	started bool
}

func (o *order) check(t int64) error {
	if o.started && t < o.last {
		return fmt.Errorf("%d goes back in time (previous record at %d)", t, o.last)
	}
	o.last, o.started = t, true
	return nil
}
