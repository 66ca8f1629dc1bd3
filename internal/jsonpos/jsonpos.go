// Package jsonpos turns the byte offsets of encoding/json's errors into
// the line and column a person looks for in a JSON file.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Offset returns the byte offset a JSON decoding error names: the
// offending byte of a syntax error, the end of the value of a type error;
// def for any other error.
func Offset(err error, def int64) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return max(0, se.Offset-1)
	case errors.As(err, &te):
		return te.Offset
	}
	return def
}

// LineCol returns the 1-based line and column of byte offset off in b
// (clamped to b).
func LineCol(b []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(b))))
	line = 1 + bytes.Count(b[:off], []byte("\n"))
	col = int(off) - bytes.LastIndexByte(b[:off], '\n')
	return line, col
}

// Trailing reports whether anything but white space follows the value dec
// has just decoded from b (a second value, a stray bracket), and if so its
// line and column.
func Trailing(dec *json.Decoder, b []byte) (line, col int, trailing bool) {
	end := dec.InputOffset()
	if _, err := dec.Token(); err == io.EOF {
		return 0, 0, false
	}
	rest := bytes.TrimLeft(b[min(end, int64(len(b))):], " \t\r\n")
	line, col = LineCol(b, int64(len(b)-len(rest)))
	return line, col, true
}
