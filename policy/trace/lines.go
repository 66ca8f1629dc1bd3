package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxLine bounds a line of a JSONL trace; a longer line is an error, so a
// reader's memory is bounded by it whatever the input.
const maxLine = 64 << 20

// lineReader yields the non-blank lines of a stream, counting them.
type lineReader struct {
	br   *bufio.Reader
	name string
	line int    // number of the line last returned
	buf  []byte // a line longer than the bufio buffer is assembled here
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 256<<10), name: name}
}

// next returns the next non-blank line without its line ending. The slice
// is valid until the next call.
func (l *lineReader) next() ([]byte, error) {
	for {
		b, err := l.read()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) > 0 {
			return b, nil
		}
	}
}

func (l *lineReader) read() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.buf = append(l.buf[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, b...)
			if len(l.buf) > maxLine {
				l.line++
				return nil, l.errorf(0, "", "line longer than %d bytes", maxLine)
			}
		}
		b = l.buf
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading %s after line %d: %w", l.display(), l.line, err)
	}
	if errors.Is(err, io.EOF) && len(b) == 0 {
		return nil, io.EOF
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'}), nil
}

func (l *lineReader) display() string {
	if l.name == "" {
		return "<input>"
	}
	return l.name
}

// errorf returns a ParseError at the line last read.
func (l *lineReader) errorf(col int, field, format string, a ...any) error {
	return &ParseError{File: l.name, Line: l.line, Col: col, Field: field, Err: fmt.Errorf(format, a...)}
}

// jsonError converts an encoding/json error about line into a ParseError
// with the column and, for a type error, the field.
func (l *lineReader) jsonError(line []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ParseError{File: l.name, Line: l.line, Col: int(syn.Offset), Err: err}
	case errors.As(err, &typ):
		return &ParseError{File: l.name, Line: l.line, Col: int(typ.Offset), Field: typ.Field,
			Err: fmt.Errorf("cannot use JSON %s as %s", typ.Value, typ.Type)}
	}
	// unknown fields and the like: name the field when the message quotes it
	msg := err.Error()
	field := ""
	if i := strings.IndexByte(msg, '"'); i >= 0 {
		if j := strings.IndexByte(msg[i+1:], '"'); j >= 0 {
			field = msg[i+1 : i+1+j]
		}
	}
	return &ParseError{File: l.name, Line: l.line, Col: keyCol(line, field), Field: field, Err: errors.New(strings.TrimPrefix(msg, "json: "))}
}

// keyCol returns the 1-based column of the key "field" in a JSON line, or 0.
func keyCol(line []byte, field string) int {
	if field == "" {
		return 0
	}
	if i := bytes.Index(line, []byte(`"`+field+`"`)); i >= 0 {
		return i + 1
	}
	return 0
}
