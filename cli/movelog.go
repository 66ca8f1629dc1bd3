package cli

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/kvtier/kvtier/policy/sim"
)

// moveHeader is the first line of a CSV move log.
const moveHeader = "policy,trace,step,block,from_tier,to_tier,bytes,reason\n"

// moveWriter writes sim's moves to a file, one line each: CSV, or JSON
// lines when the file's name ends in .jsonl or .json. Runs of several
// policies write in parallel: their lines interleave, each naming its
// policy and trace.
type moveWriter struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	json bool
	line []byte
	err  error
}

// newMoveWriter creates path and, for CSV, writes its header.
func newMoveWriter(path string) (*moveWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	m := &moveWriter{f: f, w: bufio.NewWriterSize(f, 1<<16),
		json: strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json")}
	if !m.json {
		_, m.err = m.w.WriteString(moveHeader)
	}
	return m, nil
}

// Move writes one move.
func (m *moveWriter) Move(mv sim.Move) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.line[:0]
	if m.json {
		b = append(b, `{"policy":`...)
		b = strconv.AppendQuote(b, mv.Policy)
		b = append(b, `,"trace":`...)
		b = strconv.AppendQuote(b, mv.Trace)
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, mv.Step, 10)
		b = append(b, `,"block":`...)
		b = strconv.AppendUint(b, mv.Block, 10)
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, int64(mv.From), 10)
		b = append(b, `,"to":`...)
		b = strconv.AppendInt(b, int64(mv.To), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, mv.Bytes, 10)
		b = append(b, `,"reason":"`...)
		b = append(b, mv.Reason.String()...)
		b = append(b, "\"}\n"...)
	} else {
		b = appendCSVField(b, mv.Policy)
		b = appendCSVField(append(b, ','), mv.Trace)
		b = strconv.AppendInt(append(b, ','), mv.Step, 10)
		b = strconv.AppendUint(append(b, ','), mv.Block, 10)
		b = strconv.AppendInt(append(b, ','), int64(mv.From), 10)
		b = strconv.AppendInt(append(b, ','), int64(mv.To), 10)
		b = strconv.AppendInt(append(b, ','), mv.Bytes, 10)
		b = append(append(append(b, ','), mv.Reason.String()...), '\n')
	}
	m.line = b
	if m.err == nil {
		_, m.err = m.w.Write(b)
	}
}

// appendCSVField appends s, quoted when it holds a comma or a quote.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\n") {
		return append(b, s...)
	}
	return append(append(b, '"'), append([]byte(strings.ReplaceAll(s, `"`, `""`)), '"')...)
}

// Close flushes and closes the file, returning the first write error.
func (m *moveWriter) Close() error {
	if err := m.w.Flush(); m.err == nil {
		m.err = err
	}
	if err := m.f.Close(); m.err == nil {
		m.err = err
	}
	return m.err
}
