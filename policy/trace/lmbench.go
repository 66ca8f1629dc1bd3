package trace

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// NewLMBench returns a reader of a trace of LMBench's trace replayer
// (LMCache/LMBench, 3-workloads/trace-replayer/traces/*.jsonl), one request
// a line:
//
//	{"timestamp": "1753780607550317897", "input_length": 2101, "output_length": 84, "hash_ids": [2843241808, 137021281, ...]}
//
// It is Mooncake's format (see Mooncake: the records, Meta and options are
// the same) but for three things, which follow LMBench's replayer:
//
//   - A timestamp is integer nanoseconds, a JSON string of decimal digits
//     or a JSON number; with TimeStamp, Record.Time is it unchanged.
//   - The requests are replayed in timestamp order, ties in file order,
//     whatever the order of the lines (LMBench's own trace is newest
//     first). The reader therefore reads and checks the whole input
//     before it returns the first record, and holds every request's hash
//     ids until the end: memory grows with the trace.
//   - hash_ids may have any length: LMBench's hash ids are not one per
//     BlockTokens tokens (its trace has one per 20-40 tokens). Each id is
//     still one prompt block, read in order. The decode blocks do not
//     depend on the ids either: a request appends
//     ceil((input_length+output_length)/BlockTokens) -
//     ceil(input_length/BlockTokens) of them, the blocks its output adds
//     to its prompt when both are cut into blocks of BlockTokens tokens,
//     which is the Mooncake rule too. Every block, prompt or decode, is
//     BlockTokens x KVBytesPerToken bytes.
//
// Lines are otherwise checked as strictly as Mooncake's: a syntax error,
// a missing field, a negative length, a timestamp that is not an integer
// or an id at or above 2^63 is a *ParseError at file:line:col.
func NewLMBench(r io.Reader, name string, opt MooncakeOptions) *Mooncake {
	m := NewMooncake(r, name, opt)
	m.lmb = &lmbenchQueue{}
	m.tsUnit = 1
	return m
}

// lmbenchQueue holds an LMBench trace's requests, sorted by time.
type lmbenchQueue struct {
	loaded bool
	reqs   []lmbenchReq
	ids    []uint64 // every request's hash ids, end to end
	next   int
}

// lmbenchReq is one request of the queue; its ids are ids[id0:id1].
type lmbenchReq struct {
	ts, in, out int64
	id0, id1    int
}

// nextSorted makes the queue's next request m.req, reading and sorting
// the whole input on the first call.
func (m *Mooncake) nextSorted() error {
	q := m.lmb
	if !q.loaded {
		if err := m.loadLMBench(); err != nil {
			return err
		}
	}
	if q.next == len(q.reqs) {
		return io.EOF
	}
	r := q.reqs[q.next]
	q.next++
	m.req = mooncakeReq{ts: r.ts, in: r.in, out: r.out, hasTS: true, hasIn: true, hasOut: true,
		hasIDs: true, ids: q.ids[r.id0:r.id1:r.id1]}
	return nil
}

// loadLMBench reads and checks every line into the queue and sorts it.
func (m *Mooncake) loadLMBench() error {
	q := m.lmb
	for {
		err := m.nextLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		r := &m.req
		q.reqs = append(q.reqs, lmbenchReq{ts: r.ts, in: r.in, out: r.out, id0: len(q.ids), id1: len(q.ids) + len(r.ids)})
		q.ids = append(q.ids, r.ids...)
	}
	slices.SortStableFunc(q.reqs, func(a, b lmbenchReq) int { return cmp.Compare(a.ts, b.ts) })
	q.loaded = true
	return nil
}

// checkTime validates a request's timestamp: Mooncake's are integer
// milliseconds that never go back; LMBench's are integer nanoseconds in
// any order (the reader sorts them).
func (m *Mooncake) checkTime(line []byte) error {
	r := &m.req
	bad := func(format string, a ...any) error {
		return m.lines.errorf(keyCol(line, "timestamp"), "timestamp", format, a...)
	}
	switch {
	case !r.hasTS:
		return bad("missing")
	case r.tsStr && m.lmb == nil:
		return bad("\"%d\" is a string: Mooncake's timestamps are integer milliseconds; "+
			"a trace whose timestamps are strings of nanoseconds is LMBench's (format lmbench)", r.ts)
	case r.ts > math.MaxInt64/m.tsUnit && m.lmb == nil:
		return bad("%d out of range [0, %d]: Mooncake's timestamps are integer milliseconds; "+
			"a trace whose timestamps are nanoseconds is LMBench's (format lmbench)", r.ts, math.MaxInt64/m.tsUnit)
	case r.ts < 0 || r.ts > math.MaxInt64/m.tsUnit:
		return bad("%d out of range [0, %d]", r.ts, math.MaxInt64/m.tsUnit)
	case m.lmb == nil && r.ts < m.ts:
		return bad("%d goes back in time (previous request at %d)", r.ts, m.ts)
	}
	return nil
}

// setTimestamp sets r's timestamp from its JSON value: an integer number,
// or a string of decimal digits (LMBench). null or nothing leaves it
// missing.
func (r *mooncakeReq) setTimestamp(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		v, err := parseDecimal(s)
		if err != nil {
			return fmt.Errorf("%q: want an integer count of nanoseconds below 2^63", s)
		}
		r.ts, r.hasTS, r.tsStr = v, true, true
		return nil
	}
	if err := json.Unmarshal(raw, &r.ts); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return fmt.Errorf("cannot use JSON %s as int64", typ.Value)
		}
		return err
	}
	r.hasTS = true
	return nil
}

// parseDecimal parses a non-empty string of ASCII digits (leading zeros
// allowed, nothing else) as a non-negative int64.
func parseDecimal(s string) (int64, error) {
	if s == "" {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// valueCol returns the 1-based column of the value of the key "field" in
// a JSON line, or 0.
func valueCol(line []byte, field string) int {
	i := keyCol(line, field)
	if i == 0 {
		return 0
	}
	j := i - 1 + len(field) + 2
	for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == ':') {
		j++
	}
	return j + 1
}

// stringTimestamp reports whether a line has "timestamp": "..., an
// LMBench timestamp.
func stringTimestamp(line []byte) bool {
	i := bytes.Index(line, []byte(`"timestamp"`))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(line[i+len(`"timestamp"`):], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t")
	return len(rest) > 0 && rest[0] == '"'
}
