package guest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Markers of the results protocol (see the package documentation).
const (
	BeginMarker  = "===KVTIER-E2E-BEGIN==="
	EndMarker    = "===KVTIER-E2E-END==="
	ResultPrefix = "KVTIER-RESULT"
)

// Errors of ParseResults.
var (
	ErrNoResults  = errors.New("no results on the console")
	ErrIncomplete = errors.New("results not finished (no end marker)")
	ErrBadResult  = errors.New("malformed result line")
)

// Result is one step's outcome as the guest reported it.
type Result struct {
	Name   string
	RC     int
	Output []byte
	Line   int // console line it came from
}

// JSON decodes the step's output into v, naming the step on error.
func (r *Result) JSON(v any) error {
	if err := json.Unmarshal(r.Output, v); err != nil {
		return fmt.Errorf("result %s (console line %d): decoding %q: %w", r.Name, r.Line, truncate(r.Output, 200), err)
	}
	return nil
}

// Results are the steps of one boot in the order the guest reported them.
type Results struct {
	Steps []Result
	// ExitCode is the scenario's exit code after the end marker.
	ExitCode int
}

// Get returns the last step called name.
func (rs *Results) Get(name string) (*Result, bool) {
	for i := len(rs.Steps) - 1; i >= 0; i-- {
		if rs.Steps[i].Name == name {
			return &rs.Steps[i], true
		}
	}
	return nil, false
}

// ParseResults extracts the results from a console log. Lines outside the
// markers are ignored, and so is text before the prefix on a result line
// (the console may glue a kernel message's tail to it).
func ParseResults(console []byte) (*Results, error) {
	sc := bufio.NewScanner(bytes.NewReader(console))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var rs *Results
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.Contains(text, BeginMarker):
			rs = &Results{}
		case rs == nil:
		case strings.Contains(text, EndMarker):
			_, tail, _ := strings.Cut(text, EndMarker)
			rc, err := strconv.Atoi(strings.TrimSpace(tail))
			if err != nil {
				return nil, fmt.Errorf("console line %d: exit code %q after the end marker: %w", line, tail, ErrBadResult)
			}
			rs.ExitCode = rc
			return rs, nil
		case strings.Contains(text, ResultPrefix+" "):
			r, err := parseResultLine(text[strings.Index(text, ResultPrefix+" "):], line)
			if err != nil {
				return nil, err
			}
			rs.Steps = append(rs.Steps, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading console: %w", err)
	}
	if rs == nil {
		return nil, ErrNoResults
	}
	return rs, fmt.Errorf("%d results read: %w", len(rs.Steps), ErrIncomplete)
}

// ParseResultLine parses one console line as it arrives: ok is false when
// the line holds no result (text before the prefix is ignored, as in
// ParseResults).
func ParseResultLine(text string) (r Result, ok bool, err error) {
	i := strings.Index(text, ResultPrefix+" ")
	if i < 0 {
		return Result{}, false, nil
	}
	r, err = parseResultLine(strings.TrimRight(text[i:], "\r"), 0)
	return r, err == nil, err
}

func parseResultLine(text string, line int) (Result, error) {
	f := strings.Fields(text)
	if len(f) != 3 && len(f) != 4 {
		return Result{}, fmt.Errorf("console line %d: %d fields, want %s NAME RC [BASE64]: %w", line, len(f), ResultPrefix, ErrBadResult)
	}
	rc, err := strconv.Atoi(f[2])
	if err != nil {
		return Result{}, fmt.Errorf("console line %d: exit code %q of %s: %w", line, f[2], f[1], ErrBadResult)
	}
	r := Result{Name: f[1], RC: rc, Line: line}
	if len(f) == 4 {
		if r.Output, err = base64.StdEncoding.DecodeString(f[3]); err != nil {
			return Result{}, fmt.Errorf("console line %d: output of %s: %v: %w", line, f[1], err, ErrBadResult)
		}
	}
	return r, nil
}

// FormatResult is the console line for one step (the guest side of the
// protocol, used by the probe program).
func FormatResult(name string, rc int, output []byte) string {
	if len(output) == 0 {
		return fmt.Sprintf("%s %s %d", ResultPrefix, name, rc)
	}
	return fmt.Sprintf("%s %s %d %s", ResultPrefix, name, rc, base64.StdEncoding.EncodeToString(output))
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
