package trace

import (
	"math"
	"strconv"

	"github.com/kvtier/kvtier/policy"
)

// parseJSONLFast parses a kvtier JSONL line in the simple layout
// JSONLWriter writes (known keys at most once each, strings without
// escapes, no nulls, integers in range) without encoding/json's
// reflection. It returns false for anything else, including a missing
// required key or an unknown op or class, and the caller falls back to
// encoding/json, which reports the error with its position.
func parseJSONLFast(line []byte) (Record, bool) {
	var rec Record
	m := &rec.Meta
	p := fastParser{b: line}
	if !p.byte('{') || p.peek() == '}' {
		return rec, false
	}
	var seen uint32
	for {
		key, ok := p.key()
		if !ok {
			return rec, false
		}
		bit := uint32(0)
		for i, c := range Columns {
			if c == key {
				bit = 1 << i
			}
		}
		if bit == 0 || seen&bit != 0 {
			return rec, false
		}
		seen |= bit
		if !p.value(key, &rec, m) {
			return rec, false
		}
		switch p.next() {
		case ',':
			continue
		case '}':
			const required = 1<<0 | 1<<1 | 1<<2 // op, time, block
			return rec, seen&required == required && p.end()
		}
		return rec, false
	}
}

// value parses the value of key into rec.
func (p *fastParser) value(key string, rec *Record, m *policy.Meta) bool {
	ok := true
	switch key {
	case "op":
		var s []byte
		if s, ok = p.str(); ok {
			ok = parseOpBytes(s, &rec.Op)
		}
	case "class":
		var s []byte
		if s, ok = p.str(); ok && len(s) > 0 {
			ok = parseClassBytes(s, &m.Class)
		}
	case "write":
		rec.Write, ok = p.bool()
	case "pinned":
		m.Pinned, ok = p.bool()
	case "lifetime":
		m.Lifetime, ok = p.float()
	case "time":
		rec.Time, ok = p.int(math.MinInt64, math.MaxInt64)
	case "size":
		m.Size, ok = p.int(math.MinInt64, math.MaxInt64)
	case "block":
		rec.Block, ok = p.digits()
	case "seq":
		m.Seq, ok = p.digits()
	case "tenant":
		var v uint64
		v, ok = p.digits()
		ok = ok && v <= math.MaxUint32
		m.Tenant = uint32(v)
	case "priority":
		var v uint64
		v, ok = p.digits()
		ok = ok && v <= math.MaxUint8
		m.Priority = policy.Priority(v)
	default: // refcount, pos, seq_len, max_len
		var v int64
		v, ok = p.int(math.MinInt32, math.MaxInt32)
		*int32Field(m, key) = int32(v)
	}
	return ok
}

// str reads a string without escapes or control characters; the bytes
// are the line's.
func (p *fastParser) str() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if c := p.b[p.i]; c == '\\' || c < 0x20 || c >= 0x80 {
			return nil, false
		}
		p.i++
	}
	if p.i == len(p.b) {
		return nil, false
	}
	p.i++
	return p.b[start : p.i-1], true
}

func (p *fastParser) bool() (bool, bool) {
	p.skip()
	rest := p.b[p.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		p.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		p.i += 5
		return false, true
	}
	return false, false
}

// int reads an integer in [lo, hi].
func (p *fastParser) int(lo, hi int64) (int64, bool) {
	neg := p.peek() == '-'
	if neg {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] < '0' || p.b[p.i] > '9') {
			return 0, false
		}
	}
	v, ok := p.digits()
	switch {
	case !ok:
		return 0, false
	case neg && v <= uint64(-lo):
		return -int64(v), true
	case !neg && v <= uint64(hi):
		return int64(v), true
	}
	return 0, false
}

// float reads a number in JSON's grammar that fits a float64.
func (p *fastParser) float() (float64, bool) {
	p.skip()
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if n := digits(); n == 0 || n > 1 && p.b[intStart] == '0' {
		return 0, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return 0, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return f, err == nil
}
