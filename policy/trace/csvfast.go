package trace

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/kvtier/kvtier/policy"
)

// Indexes of the columns in Columns (TestColumnIndexes checks them).
const (
	colOp = iota
	colTime
	colBlock
	colWrite
	colTenant
	colClass
	colPriority
	colPinned
	colRefCount
	colLifetime
	colSeq
	colPos
	colSeqLen
	colMaxLen
	colSize
)

// setFieldBytes parses cell v of column Columns[col] into rec when v is in
// the plain form the writers emit (digits, names, true/false), without
// allocating, and reports whether it did. For anything else, a bad value
// included, it returns false and setField parses the cell and reports
// what is wrong, so both accept and refuse exactly the same cells.
func setFieldBytes(rec *Record, col int, v []byte) bool {
	if len(v) == 0 {
		return col != colOp && col != colTime && col != colBlock // required: setField says "empty"
	}
	m := &rec.Meta
	switch col {
	case colOp:
		return parseOpBytes(v, &rec.Op)
	case colTime:
		return plainInt(v, math.MinInt64, math.MaxInt64, &rec.Time)
	case colBlock:
		return plainUint(v, math.MaxUint64, &rec.Block)
	case colSize:
		return plainInt(v, math.MinInt64, math.MaxInt64, &m.Size)
	case colSeq:
		return plainUint(v, math.MaxUint64, &m.Seq)
	case colWrite:
		return plainBool(v, &rec.Write)
	case colPinned:
		return plainBool(v, &m.Pinned)
	case colClass:
		return parseClassBytes(v, &m.Class)
	case colLifetime:
		f, err := strconv.ParseFloat(string(v), 64)
		m.Lifetime = f
		return err == nil
	case colTenant:
		var n uint64
		ok := plainUint(v, math.MaxUint32, &n)
		m.Tenant = uint32(n)
		return ok
	case colPriority:
		var n uint64
		ok := plainUint(v, math.MaxUint8, &n)
		m.Priority = policy.Priority(n)
		return ok
	}
	var n int64 // refcount, pos, seq_len, max_len
	ok := plainInt(v, math.MinInt32, math.MaxInt32, &n)
	*int32Field(m, Columns[col]) = int32(n)
	return ok
}

// plainUint sets *out to v, 1 to 19 ASCII digits, if it is at most max.
func plainUint(v []byte, max uint64, out *uint64) bool {
	if len(v) == 0 || len(v) > 19 {
		return false
	}
	var n uint64
	for len(v) >= 8 {
		d, ok := eightDigits(binary.LittleEndian.Uint64(v))
		if !ok {
			return false
		}
		n = n*100_000_000 + d
		v = v[8:]
	}
	for _, c := range v {
		d := c - '0'
		if d > 9 {
			return false
		}
		n = n*10 + uint64(d)
	}
	*out = n
	return n <= max
}

// eightDigits returns the value of eight ASCII digits loaded little-endian
// (the first digit in the lowest byte), or false if a byte is not a digit.
func eightDigits(x uint64) (uint64, bool) {
	// Each byte is 0x30-0x39: its high nibble is 3, and adding 6 keeps it 3.
	const ones = 0x0101010101010101
	if x&(0xF0*ones)|(x+6*ones)&(0xF0*ones)>>4 != 0x33*ones {
		return 0, false
	}
	x &= 0x0F * ones
	x = (x * (10<<8 + 1)) >> 8 & 0x00FF00FF00FF00FF       // pairs of digits
	x = (x * (100<<16 + 1)) >> 16 & 0x0000FFFF0000FFFF    // fours
	return (x * (10000<<32 + 1)) >> 32 & 0xFFFFFFFF, true // eight
}

// plainInt sets *out to v, digits with an optional '-', if it is within
// [lo, hi].
func plainInt(v []byte, lo, hi int64, out *int64) bool {
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	var u uint64
	if !plainUint(v, math.MaxInt64, &u) {
		return false
	}
	n := int64(u)
	if neg {
		n = -n
	}
	*out = n
	return n >= lo && n <= hi
}

func plainBool(v []byte, out *bool) bool {
	switch string(v) {
	case "true", "1":
		*out = true
	case "false", "0":
		*out = false
	default:
		return false
	}
	return true
}

func parseOpBytes(v []byte, out *Op) bool {
	for i, n := range opNames {
		if string(v) == n {
			*out = Op(i)
			return true
		}
	}
	return false
}

func parseClassBytes(v []byte, out *policy.Class) bool {
	for c := policy.ClassNone; c <= policy.ClassOutputCritical; c++ {
		if string(v) == c.String() {
			*out = c
			return true
		}
	}
	return false
}
