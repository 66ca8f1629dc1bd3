package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kvtier/kvtier/policy"
)

// jsonlRecord is one line of kvtier's JSONL format. Pointers tell a
// missing required field from a zero one.
type jsonlRecord struct {
	Op       *string `json:"op"`
	Time     *int64  `json:"time"`
	Block    *uint64 `json:"block"`
	Write    bool    `json:"write"`
	Tenant   uint32  `json:"tenant"`
	Class    string  `json:"class"`
	Priority uint8   `json:"priority"`
	Pinned   bool    `json:"pinned"`
	RefCount int32   `json:"refcount"`
	Lifetime float64 `json:"lifetime"`
	Seq      uint64  `json:"seq"`
	Pos      int32   `json:"pos"`
	SeqLen   int32   `json:"seq_len"`
	MaxLen   int32   `json:"max_len"`
	Size     int64   `json:"size"`
}

// JSONL reads kvtier's own JSONL trace format: one JSON object a line,
// with the keys of Columns:
//
//	{"op":"access","time":12,"block":7,"write":true,"tenant":1,"class":"think_active","priority":2,"size":4096}
//
// op (access, free or update), time and block are required; the others
// default to zero (class "none", priority 0 = low). class is a name as
// printed by policy.Class.String. Unknown keys, data after the object,
// out-of-range values and time going backwards are errors naming the line,
// column and field. Blank lines are skipped. Memory is bounded by the
// longest line.
type JSONL struct {
	lines *lineReader
	ord   order
}

// NewJSONL returns a reader of the kvtier JSONL trace in r; name is used
// in errors (a file name).
func NewJSONL(r io.Reader, name string) *JSONL {
	return &JSONL{lines: newLineReader(r, name)}
}

// Next returns the next record, io.EOF at the end, or a *ParseError.
func (j *JSONL) Next() (Record, error) {
	line, err := j.lines.next()
	if err != nil {
		return Record{}, err
	}
	rec, ok := parseJSONLFast(line)
	if !ok {
		if rec, err = j.decode(line); err != nil {
			return Record{}, err
		}
	}
	bad := func(field string, err error) error {
		return &ParseError{File: j.lines.name, Line: j.lines.line, Col: keyCol(line, field), Field: field, Err: err}
	}
	if field, err := check(&rec); err != nil {
		return Record{}, bad(field, err)
	}
	if err := j.ord.check(rec.Time); err != nil {
		return Record{}, bad("time", err)
	}
	return rec, nil
}

// decode parses line with encoding/json: the fallback of parseJSONLFast,
// and the source of positioned errors.
func (j *JSONL) decode(line []byte) (Record, error) {
	var jr jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jr); err != nil {
		return Record{}, j.lines.jsonError(line, err)
	}
	if off := int(dec.InputOffset()); len(bytes.TrimSpace(line[off:])) > 0 {
		col := off + len(line[off:]) - len(bytes.TrimLeft(line[off:], " \t\r")) + 1
		return Record{}, j.lines.errorf(col, "", "data after the JSON object")
	}
	bad := func(field string, err error) error {
		return &ParseError{File: j.lines.name, Line: j.lines.line, Col: keyCol(line, field), Field: field, Err: err}
	}
	for _, req := range []struct {
		name    string
		missing bool
	}{{"op", jr.Op == nil}, {"time", jr.Time == nil}, {"block", jr.Block == nil}} {
		if req.missing {
			return Record{}, bad(req.name, errors.New("missing"))
		}
	}
	op, err := ParseOp(*jr.Op)
	if err != nil {
		return Record{}, bad("op", err)
	}
	class, err := policy.ParseClass(jr.Class)
	if jr.Class == "" {
		class, err = policy.ClassNone, nil
	}
	if err != nil {
		return Record{}, bad("class", err)
	}
	return Record{Op: op, Time: *jr.Time, Block: *jr.Block, Write: jr.Write, Meta: policy.Meta{
		Size: jr.Size, Tenant: jr.Tenant, Class: class, Priority: policy.Priority(jr.Priority),
		Pinned: jr.Pinned, RefCount: jr.RefCount, Lifetime: jr.Lifetime, Seq: jr.Seq,
		Pos: jr.Pos, SeqLen: jr.SeqLen, MaxLen: jr.MaxLen}}, nil
}

// JSONLWriter writes records in kvtier's JSONL format, one object a line,
// with op, time and block always present and the other keys only when not
// zero. It is not safe for concurrent use.
type JSONLWriter struct {
	w   *bufio.Writer
	dst io.Writer
	buf []byte
}

// NewJSONLWriter returns a writer of kvtier JSONL to w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	return &JSONLWriter{w: bufio.NewWriterSize(w, 64<<10), dst: w}
}

// Write buffers one record. A record that the reader would reject (an
// out-of-range field, a lifetime that is not finite) is an error.
func (w *JSONLWriter) Write(r Record) error {
	if field, err := check(&r); err != nil {
		return fmt.Errorf("writing record at time %d: field %s: %w", r.Time, field, err)
	}
	m := &r.Meta
	b := append(w.buf[:0], `{"op":"`...)
	b = append(b, r.Op.String()...)
	b = append(b, `","time":`...)
	b = strconv.AppendInt(b, r.Time, 10)
	b = append(b, `,"block":`...)
	b = strconv.AppendUint(b, r.Block, 10)
	if r.Write {
		b = append(b, `,"write":true`...)
	}
	b = appendInt(b, "tenant", int64(m.Tenant))
	if m.Class != policy.ClassNone {
		b = append(b, `,"class":"`...)
		b = append(b, m.Class.String()...)
		b = append(b, '"')
	}
	b = appendInt(b, "priority", int64(m.Priority))
	if m.Pinned {
		b = append(b, `,"pinned":true`...)
	}
	b = appendInt(b, "refcount", int64(m.RefCount))
	if m.Lifetime != 0 {
		b = append(b, `,"lifetime":`...)
		b = strconv.AppendFloat(b, m.Lifetime, 'g', -1, 64)
	}
	if m.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, m.Seq, 10)
	}
	b = appendInt(b, "pos", int64(m.Pos))
	b = appendInt(b, "seq_len", int64(m.SeqLen))
	b = appendInt(b, "max_len", int64(m.MaxLen))
	b = appendInt(b, "size", m.Size)
	b = append(b, "}\n"...)
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// appendInt appends ,"key":v unless v is zero.
func appendInt(b []byte, key string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

// Flush writes buffered records to the underlying writer.
func (w *JSONLWriter) Flush() error {
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// Close flushes and closes the underlying writer if it is an io.Closer.
func (w *JSONLWriter) Close() error {
	return flushClose(w, w.dst)
}

func flushClose(f interface{ Flush() error }, dst io.Writer) error {
	err := f.Flush()
	if c, ok := dst.(io.Closer); ok {
		if cerr := c.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("closing trace: %w", cerr)
		}
	}
	return err
}

var (
	_ Reader = (*JSONL)(nil)
	_ Writer = (*JSONLWriter)(nil)
)
