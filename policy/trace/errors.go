package trace

import (
	"errors"
	"fmt"
)

// Sentinel errors, tested with errors.Is.
var (
	// ErrMalformed is wrapped by every error about bad trace input: a
	// syntax error, a missing or out-of-range field, time going backwards.
	ErrMalformed = errors.New("malformed trace")
	// ErrUnknownFormat is returned by Open for a file whose format it
	// cannot tell.
	ErrUnknownFormat = errors.New("unknown trace format")
	// ErrUnknownWorkload is returned for a workload name that is not
	// registered.
	ErrUnknownWorkload = errors.New("unknown workload")
	// ErrNoDecode is returned by OpenWith when NoDecode is asked of a
	// trace that has no decode blocks to leave out (neither Mooncake nor
	// LMBench).
	ErrNoDecode = errors.New("no-decode applies only to Mooncake and LMBench traces")
	// ErrBadParam is returned for a malformed, unknown or out-of-range
	// workload parameter.
	ErrBadParam = errors.New("bad workload parameter")
)

// ParseError is an error at a position of a trace file. It unwraps to
// ErrMalformed and to the underlying cause, if any.
type ParseError struct {
	File  string // file name as given to the reader; "" for an unnamed stream
	Line  int    // 1-based line
	Col   int    // 1-based column (byte offset within the line); 0 if unknown
	Field string // field or column name; "" if the error is not about one field
	Err   error  // what is wrong
}

// Error formats the error as file:line:col: field: message.
func (e *ParseError) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	pos := fmt.Sprintf("%s:%d", file, e.Line)
	if e.Col > 0 {
		pos += fmt.Sprintf(":%d", e.Col)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %s: %v", pos, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", pos, e.Err)
}

// Unwrap returns ErrMalformed and the cause.
func (e *ParseError) Unwrap() []error { return []error{ErrMalformed, e.Err} }
