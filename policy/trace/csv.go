package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/kvtier/kvtier/policy"
)

// CSV reads kvtier traces in CSV: a header row naming the columns, then one
// record a row. The columns are those of Columns in any order; time, block
// and op are required, the others optional, and an empty cell is zero.
// op and class are names (access, think_active, ...), write and pinned are
// booleans (true/false/1/0). Unknown or repeated columns, rows with the
// wrong number of cells, bad values and time going backwards are errors
// naming the line, column and field. Memory is bounded by the longest row,
// and a row of plain values (digits, names) is read without allocating.
type CSV struct {
	s    *csvScanner
	name string
	cols []string // column names, by position; nil before the header
	kind []int    // index in Columns of each column
	ord  order
}

// NewCSV returns a reader of the CSV trace in r; name is used in errors.
func NewCSV(r io.Reader, name string) *CSV {
	return &CSV{s: newCSVScanner(r), name: name}
}

// errAt returns a ParseError at cell i of the last row read.
func (c *CSV) errAt(i int, field string, err error) error {
	line, col := c.s.fieldPos(i)
	return &ParseError{File: c.name, Line: line, Col: col, Field: field, Err: err}
}

func (c *CSV) read() error {
	err := c.s.read()
	if err == nil {
		return nil
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: c.name, Line: pe.Line, Col: pe.Column, Err: pe.Err}
	}
	if !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading %s: %w", c.name, err)
	}
	return err
}

func (c *CSV) header() error {
	err := c.read()
	if errors.Is(err, io.EOF) {
		return &ParseError{File: c.name, Line: 1, Err: errors.New("no header row")}
	}
	if err != nil {
		return err
	}
	c.cols = make([]string, c.s.n())
	for i := range c.cols {
		name := string(c.s.field(i))
		switch {
		case !slices.Contains(Columns, name):
			return c.errAt(i, name, fmt.Errorf("unknown column (want some of %v)", Columns))
		case slices.Contains(c.cols[:i], name):
			return c.errAt(i, name, errors.New("column given twice"))
		}
		c.cols[i] = name
		c.kind = append(c.kind, slices.Index(Columns, name))
	}
	for _, req := range []string{"time", "block", "op"} {
		if !slices.Contains(c.cols, req) {
			return &ParseError{File: c.name, Line: 1, Field: req, Err: errors.New("required column missing from the header")}
		}
	}
	return nil
}

// Next returns the next record, io.EOF at the end, or a *ParseError.
func (c *CSV) Next() (Record, error) {
	if c.cols == nil {
		if err := c.header(); err != nil {
			return Record{}, err
		}
	}
	if err := c.read(); err != nil {
		return Record{}, err
	}
	var rec Record
	for i, col := range c.cols {
		v := c.s.field(i)
		if setFieldBytes(&rec, c.kind[i], v) {
			continue
		}
		if err := setField(&rec, col, string(v)); err != nil {
			return Record{}, c.errAt(i, col, err)
		}
	}
	if field, err := check(&rec); err != nil {
		return Record{}, c.errAt(slices.Index(c.cols, field), field, err)
	}
	if err := c.ord.check(rec.Time); err != nil {
		return Record{}, c.errAt(slices.Index(c.cols, "time"), "time", err)
	}
	return rec, nil
}

// setField parses one cell into rec.
func setField(rec *Record, col, v string) error {
	if v == "" {
		if col == "time" || col == "block" || col == "op" {
			return errors.New("empty")
		}
		return nil
	}
	m := &rec.Meta
	var err error
	switch col {
	case "op":
		rec.Op, err = ParseOp(v)
	case "class":
		m.Class, err = policy.ParseClass(v)
	case "write":
		rec.Write, err = strconv.ParseBool(v)
	case "pinned":
		m.Pinned, err = strconv.ParseBool(v)
	case "lifetime":
		m.Lifetime, err = strconv.ParseFloat(v, 64)
	case "time":
		rec.Time, err = strconv.ParseInt(v, 10, 64)
	case "size":
		m.Size, err = strconv.ParseInt(v, 10, 64)
	case "block":
		rec.Block, err = strconv.ParseUint(v, 10, 64)
	case "seq":
		m.Seq, err = strconv.ParseUint(v, 10, 64)
	case "tenant":
		var n uint64
		n, err = strconv.ParseUint(v, 10, 32)
		m.Tenant = uint32(n)
	case "priority":
		var n uint64
		n, err = strconv.ParseUint(v, 10, 8)
		m.Priority = policy.Priority(n)
	default: // refcount, pos, seq_len, max_len
		var n int64
		n, err = strconv.ParseInt(v, 10, 32)
		*int32Field(m, col) = int32(n)
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		err = fmt.Errorf("%q: %w", v, ne.Err)
	}
	return err
}

func int32Field(m *policy.Meta, col string) *int32 {
	switch col {
	case "refcount":
		return &m.RefCount
	case "pos":
		return &m.Pos
	case "seq_len":
		return &m.SeqLen
	default:
		return &m.MaxLen
	}
}

// CSVWriter writes records as CSV with every column of Columns.
type CSVWriter struct {
	w       *csv.Writer
	dst     io.Writer
	started bool
	row     []string
}

// NewCSVWriter returns a CSV trace writer to w. The header is written with
// the first record (or by Flush on an empty trace).
func NewCSVWriter(w io.Writer) *CSVWriter {
	return &CSVWriter{w: csv.NewWriter(w), dst: w, row: make([]string, len(Columns))}
}

// Write buffers one record.
func (w *CSVWriter) Write(r Record) error {
	if field, err := check(&r); err != nil {
		return fmt.Errorf("writing record at time %d: field %s: %w", r.Time, field, err)
	}
	if err := w.start(); err != nil {
		return err
	}
	m := &r.Meta
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	for i, col := range Columns {
		var s string
		switch col {
		case "op":
			s = r.Op.String()
		case "time":
			s = itoa(r.Time)
		case "block":
			s = strconv.FormatUint(r.Block, 10)
		case "write":
			s = strconv.FormatBool(r.Write)
		case "tenant":
			s = itoa(int64(m.Tenant))
		case "class":
			s = m.Class.String()
		case "priority":
			s = itoa(int64(m.Priority))
		case "pinned":
			s = strconv.FormatBool(m.Pinned)
		case "lifetime":
			s = strconv.FormatFloat(m.Lifetime, 'g', -1, 64)
		case "seq":
			s = strconv.FormatUint(m.Seq, 10)
		case "size":
			s = itoa(m.Size)
		default:
			s = itoa(int64(*int32Field(m, col)))
		}
		w.row[i] = s
	}
	if err := w.w.Write(w.row); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

func (w *CSVWriter) start() error {
	if w.started {
		return nil
	}
	w.started = true
	if err := w.w.Write(Columns); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// Flush writes buffered records (and the header of an empty trace).
func (w *CSVWriter) Flush() error {
	if err := w.start(); err != nil {
		return err
	}
	w.w.Flush()
	if err := w.w.Error(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// Close flushes and closes the underlying writer if it is an io.Closer.
func (w *CSVWriter) Close() error { return flushClose(w, w.dst) }

var (
	_ Reader = (*CSV)(nil)
	_ Writer = (*CSVWriter)(nil)
)
