package cli

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/kvtier/kvtier/policy/sim"
)

// moveHeader is the first line of a CSV move log.
const moveHeader = "policy,trace,step,block,from_tier,to_tier,bytes,reason\n"

// moveWriter writes sim's moves to a file, one line each: CSV, or JSON
// lines when the file's name ends in .jsonl or .json, compressed when it
// then ends in .gz (gzip) or .zst (zstd). Runs of several policies write in
// parallel: their lines interleave, each naming its policy and trace.
type moveWriter struct {
	mu   sync.Mutex
	f    *os.File
	z    io.WriteCloser // the compressor, nil for a plain file
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
	m := &moveWriter{f: f}
	var out io.Writer = f
	base := path
	switch {
	case strings.HasSuffix(path, ".gz"):
		m.z, base = gzip.NewWriter(f), strings.TrimSuffix(path, ".gz")
	case strings.HasSuffix(path, ".zst"):
		zw, zerr := zstd.NewWriter(f)
		if zerr != nil {
			f.Close()
			return nil, zerr
		}
		m.z, base = zw, strings.TrimSuffix(path, ".zst")
	}
	if m.z != nil {
		out = m.z
	}
	m.w = bufio.NewWriterSize(out, 1<<16)
	m.json = strings.HasSuffix(base, ".jsonl") || strings.HasSuffix(base, ".json")
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
	if m.z != nil {
		if err := m.z.Close(); m.err == nil {
			m.err = err
		}
	}
	if err := m.f.Close(); m.err == nil {
		m.err = err
	}
	return m.err
}
