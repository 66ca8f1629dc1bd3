package trace

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"unicode"
	"unicode/utf8"
)

// csvScanner splits a CSV stream into records with the rules of
// encoding/csv's Reader set up as kvtier reads traces (comma ',', no
// comments, TrimLeadingSpace, strict quotes, every record as long as the
// first), and reports the same errors at the same lines and columns, but
// keeps a record's fields as byte slices of one reused buffer: reading a
// record allocates nothing once the buffers have grown to the longest.
type csvScanner struct {
	br      *bufio.Reader
	numLine int
	raw     []byte // a line longer than the bufio buffer is assembled here
	buf     []byte // the unquoted bytes of a record with quotes
	data    []byte // the record's bytes: its line, or buf
	starts  []int  // start of each field in data
	ends    []int  // end of each field in data
	pos     []csvPos
	plain   bool // the record is one line without quotes: field i is at column starts[i]+1
	fields  int  // the number of fields of the first record; 0 before it
}

// csvPos is the line and 1-based byte column where a field starts.
type csvPos struct{ line, col int }

func newCSVScanner(r io.Reader) *csvScanner {
	return &csvScanner{br: bufio.NewReaderSize(r, 256<<10)}
}

// field returns field i of the record last read, valid until the next read.
func (s *csvScanner) field(i int) []byte { return s.data[s.starts[i]:s.ends[i]] }

// n returns the number of fields of the record last read.
func (s *csvScanner) n() int { return len(s.ends) }

// fieldPos returns the line and column of field i of the record last read.
func (s *csvScanner) fieldPos(i int) (int, int) {
	switch {
	case i < 0 || i >= len(s.ends):
		return 0, 0
	case s.plain:
		return s.numLine, s.starts[i] + 1
	}
	return s.pos[i].line, s.pos[i].col
}

// readLine returns the next line with \r\n made \n, as csv.Reader does.
func (s *csvScanner) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.raw = append(s.raw[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.br.ReadSlice('\n')
			s.raw = append(s.raw, line...)
		}
		line = s.raw
	}
	n := len(line)
	if n > 0 && err == io.EOF {
		err = nil
		if line[n-1] == '\r' { // dropped before EOF, as csv.Reader does
			line = line[:n-1]
		}
	}
	s.numLine++
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

// lengthNL is 1 if b ends with a newline, else 0.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// skipSpace returns the index of the first byte of line that does not
// start a Unicode space, len(line) if there is none.
func skipSpace(line []byte) int {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if c != ' ' && (c < '\t' || c > '\r') {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return len(line)
}

// read reads the next record, skipping empty lines. It returns io.EOF at
// the end, a *csv.ParseError for malformed CSV, or the stream's error.
func (s *csvScanner) read() error {
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = s.readLine()
		if errRead == nil && len(line) == lengthNL(line) {
			continue // an empty line
		}
		break
	}
	if errors.Is(errRead, io.EOF) {
		return io.EOF
	}
	s.starts, s.ends = s.starts[:0], s.ends[:0]
	recLine := s.numLine
	var err error
	if s.plain = s.split(line); !s.plain {
		s.buf, s.data, s.starts, s.ends, s.pos = s.buf[:0], nil, s.starts[:0], s.ends[:0], s.pos[:0]
		err = s.parse(line, &errRead, recLine)
		s.data = s.buf
	}
	if err == nil {
		err = errRead
	}
	if s.fields == 0 {
		s.fields = len(s.ends)
	} else if len(s.ends) != s.fields && err == nil {
		err = &csv.ParseError{StartLine: recLine, Line: recLine, Column: 1, Err: csv.ErrFieldCount}
	}
	return err
}

// split splits a line without quotes whose fields start with no space
// into fields of the line itself, and reports whether it could; parse
// reads any other line, by the same rules.
func (s *csvScanner) split(line []byte) bool {
	start := 0
	for i, c := range line {
		switch {
		case c == ',':
			s.starts = append(s.starts, start)
			s.ends = append(s.ends, i)
			start = i + 1
		case c == '"':
			return false
		case i == start && (c <= ' ' || c >= utf8.RuneSelf) && c != '\n':
			return false // it may start with a space to trim
		}
	}
	s.starts = append(s.starts, start)
	s.ends = append(s.ends, len(line)-lengthNL(line))
	s.data = line
	return true
}

// parse splits line (and, for quoted fields with newlines, the lines
// after it) into fields.
func (s *csvScanner) parse(line []byte, errRead *error, recLine int) error {
	pos := csvPos{line: s.numLine, col: 1}
	for {
		i := skipSpace(line)
		if i == len(line) {
			pos.col -= lengthNL(line)
		}
		line = line[i:]
		pos.col += i
		if len(line) > 0 && line[0] == '"' {
			rest, done, err := s.quoted(line, &pos, errRead, recLine)
			if err != nil || done {
				return err
			}
			line = rest
			continue
		}
		i = bytes.IndexByte(line, ',')
		field := line
		if i >= 0 {
			field = field[:i]
		} else {
			field = field[:len(field)-lengthNL(field)]
		}
		if j := bytes.IndexByte(field, '"'); j >= 0 {
			return &csv.ParseError{StartLine: recLine, Line: s.numLine, Column: pos.col + j, Err: csv.ErrBareQuote}
		}
		s.starts = append(s.starts, len(s.buf))
		s.buf = append(s.buf, field...)
		s.ends = append(s.ends, len(s.buf))
		s.pos = append(s.pos, pos)
		if i < 0 {
			return nil
		}
		line = line[i+1:]
		pos.col += i + 1
	}
}

// quoted reads a quoted field starting at line[0] == '"'. It returns the
// rest of the line after the field's comma, or done at the record's end.
func (s *csvScanner) quoted(line []byte, pos *csvPos, errRead *error, recLine int) ([]byte, bool, error) {
	fieldPos := *pos
	s.starts = append(s.starts, len(s.buf))
	line = line[1:]
	pos.col++
	for {
		i := bytes.IndexByte(line, '"')
		switch {
		case i >= 0:
			s.buf = append(s.buf, line[:i]...)
			line = line[i+1:]
			pos.col += i + 1
			switch {
			case len(line) > 0 && line[0] == '"': // "" is a quote
				s.buf = append(s.buf, '"')
				line = line[1:]
				pos.col++
			case len(line) > 0 && line[0] == ',': // end of field
				s.endField(fieldPos)
				pos.col++
				return line[1:], false, nil
			case lengthNL(line) == len(line): // end of record
				s.endField(fieldPos)
				return nil, true, nil
			default:
				return nil, true, &csv.ParseError{StartLine: recLine, Line: s.numLine, Column: pos.col - 1, Err: csv.ErrQuote}
			}
		case len(line) > 0: // the field goes on on the next line
			s.buf = append(s.buf, line...)
			if *errRead != nil {
				return nil, true, nil
			}
			pos.col += len(line)
			line, *errRead = s.readLine()
			if len(line) > 0 {
				pos.line++
				pos.col = 1
			}
			if errors.Is(*errRead, io.EOF) {
				*errRead = nil
			}
		default: // the input ended inside the quotes
			if *errRead == nil {
				return nil, true, &csv.ParseError{StartLine: recLine, Line: pos.line, Column: pos.col, Err: csv.ErrQuote}
			}
			s.endField(fieldPos)
			return nil, true, nil
		}
	}
}

func (s *csvScanner) endField(p csvPos) {
	s.ends = append(s.ends, len(s.buf))
	s.pos = append(s.pos, p)
}
