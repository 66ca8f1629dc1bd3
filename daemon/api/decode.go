package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrBadRequest marks a request body that could not be decoded.
var ErrBadRequest = errors.New("bad request")

// Decode reads exactly one JSON value from r into v. Unknown fields, wrong
// types, trailing data and an empty body are errors wrapping ErrBadRequest
// with a message that names the field or offset.
func Decode(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &decodeError{msg: describe(err), err: err}
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the JSON value", ErrBadRequest)
	}
	var rest [1]byte
	if n, _ := dec.Buffered().Read(rest[:]); n > 0 && len(bytes.TrimSpace(rest[:n])) > 0 {
		return fmt.Errorf("%w: trailing data after the JSON value", ErrBadRequest)
	}
	return nil
}

// describe turns a json error into a message for the API caller.
func describe(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	var maxErr interface{ Limit() int64 }
	switch {
	case errors.Is(err, io.EOF):
		return "empty body: want a JSON object"
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "body"
		}
		return fmt.Sprintf("field %s: want %s, got JSON %s", field, typeErr.Type, typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &maxErr):
		return fmt.Sprintf("body larger than %d bytes", maxErr.Limit())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON body"
	}
	return err.Error()
}

// decodeError is a body that could not be decoded: it matches
// ErrBadRequest and the underlying error (such as *http.MaxBytesError).
type decodeError struct {
	msg string
	err error
}

func (e *decodeError) Error() string   { return ErrBadRequest.Error() + ": " + e.msg }
func (e *decodeError) Unwrap() []error { return []error{ErrBadRequest, e.err} }
