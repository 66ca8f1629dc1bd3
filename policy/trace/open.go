package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Format is a trace file format.
type Format uint8

// Trace file formats.
const (
	FormatUnknown  Format = iota
	FormatJSONL           // kvtier's JSONL (JSONL, JSONLWriter)
	FormatMooncake        // Mooncake's JSONL (Mooncake)
	FormatCSV             // kvtier's CSV (CSV, CSVWriter)
	FormatLMBench         // LMBench's trace-replayer JSONL (NewLMBench)
)

var formatNames = [...]string{"unknown", "jsonl", "mooncake", "csv", "lmbench"}

// String returns the format's name: jsonl, mooncake, csv or lmbench.
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

// file is a Reader over an open file and its decompressor.
type file struct {
	Reader
	src io.Closer // the decompressed stream
	f   *os.File
}

// Close closes the decompressor and the file.
func (f *file) Close() error { return errors.Join(f.src.Close(), f.f.Close()) }

// OpenOptions configure Open.
type OpenOptions struct {
	// Format forces a format instead of detecting it.
	Format Format
	// Mooncake configures the reader of Mooncake and LMBench traces.
	Mooncake MooncakeOptions
}

// Open opens a trace file, detecting its compression and format. A file
// that starts with the gzip or zstd magic number is decompressed as it is
// read, whatever its name; errors still name the file and the line and
// column of the decompressed text. Of the text, a first line that is a
// JSON object with a hash_ids key is Mooncake, or LMBench if its
// timestamp is a JSON string; any other JSON object is kvtier JSONL; a
// file named *.csv (or *.csv.gz, *.csv.zst) or whose first line is not
// JSON is CSV. Mooncake and LMBench traces are read with the default
// MooncakeOptions.
func Open(path string) (Closer, error) { return OpenWith(path, OpenOptions{}) }

// OpenWith opens a trace file with options.
func OpenWith(path string, opt OpenOptions) (Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		// The message names the path once: "opening trace P: no such
		// file or directory" (errors.Is still sees fs.ErrNotExist).
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("opening trace %s: %w", path, err)
	}
	r, src, err := openStream(f, path, opt)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening trace %s: %w", path, err)
	}
	return &file{Reader: r, src: src, f: f}, nil
}

// openStream detects rs's format unless opt gives it, rewinds rs and
// returns a reader of its decompressed records and the decompressor.
func openStream(rs io.ReadSeeker, name string, opt OpenOptions) (Reader, io.Closer, error) {
	format := opt.Format
	if format == FormatUnknown {
		var err error
		format, err = Detect(rs, name)
		if err == nil {
			_, err = rs.Seek(0, io.SeekStart)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if opt.Mooncake.NoDecode && format != FormatMooncake && format != FormatLMBench {
		return nil, nil, fmt.Errorf("a %s trace: %w", format, ErrNoDecode)
	}
	src, _, err := Decompress(rs)
	if err != nil {
		return nil, nil, err
	}
	var r Reader
	switch format {
	case FormatJSONL:
		r = NewJSONL(src, name)
	case FormatMooncake:
		r = NewMooncake(src, name, opt.Mooncake)
	case FormatLMBench:
		r = NewLMBench(src, name, opt.Mooncake)
	case FormatCSV:
		r = NewCSV(src, name)
	default:
		src.Close()
		return nil, nil, fmt.Errorf("%w %d", ErrUnknownFormat, format)
	}
	return r, src, nil
}

// OpenMooncake opens a Mooncake JSONL trace file.
func OpenMooncake(path string, opt MooncakeOptions) (Closer, error) {
	return OpenWith(path, OpenOptions{Format: FormatMooncake, Mooncake: opt})
}

// Detect reads the start of r, decompressing it if it is gzip or zstd,
// and tells its format (see Open). name's extension, less a .gz or .zst,
// breaks ties: an empty *.jsonl file is kvtier JSONL, an empty *.csv file
// is CSV; any other empty file is ErrUnknownFormat.
func Detect(r io.Reader, name string) (Format, error) {
	zr, _, err := Decompress(r)
	if err != nil {
		return FormatUnknown, err
	}
	defer zr.Close()
	ext := strings.ToLower(filepath.Ext(trimCompressedExt(name)))
	first, err := firstLine(zr)
	if err != nil {
		return FormatUnknown, err
	}
	switch {
	case len(first) == 0 && ext == ".jsonl":
		return FormatJSONL, nil
	case len(first) == 0 && ext == ".csv":
		return FormatCSV, nil
	case len(first) == 0:
		return FormatUnknown, fmt.Errorf("%w: empty file", ErrUnknownFormat)
	case ext == ".csv" || first[0] != '{':
		return FormatCSV, nil
	}
	return detectJSON(first), nil
}

// firstLine returns the first non-blank line of r, trimmed, or nil if r
// has none; only an error other than io.EOF is returned.
func firstLine(r io.Reader) ([]byte, error) {
	br := bufio.NewReader(r)
	var first []byte
	for len(bytes.TrimSpace(first)) == 0 {
		line, err := br.ReadSlice('\n')
		first = append(first[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) && len(first) < maxLine {
			line, err = br.ReadSlice('\n')
			first = append(first, line...)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return bytes.TrimSpace(first), nil
}

// detectJSON tells the format of a first line that starts with '{'.
func detectJSON(first []byte) Format {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(first, &keys); err != nil {
		// a malformed line: let the reader report it, in the format it
		// most likely is
		switch {
		case !bytes.Contains(first, []byte(`"hash_ids"`)):
			return FormatJSONL
		case stringTimestamp(first):
			return FormatLMBench
		}
		return FormatMooncake
	}
	if _, ok := keys["hash_ids"]; !ok {
		return FormatJSONL
	}
	if ts := keys["timestamp"]; len(ts) > 0 && ts[0] == '"' {
		return FormatLMBench
	}
	return FormatMooncake
}

// ParseFormat parses a format name as printed by Format.String.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if n == s && Format(i) != FormatUnknown {
			return Format(i), nil
		}
	}
	return FormatUnknown, fmt.Errorf("%w %q (want jsonl, mooncake, lmbench or csv)", ErrUnknownFormat, s)
}

// NewWriter returns a writer of format f (FormatJSONL or FormatCSV; kvtier
// does not write Mooncake or LMBench traces) to w.
func NewWriter(w io.Writer, f Format) (Writer, error) {
	switch f {
	case FormatJSONL:
		return NewJSONLWriter(w), nil
	case FormatCSV:
		return NewCSVWriter(w), nil
	}
	return nil, fmt.Errorf("%w: cannot write %s traces (want jsonl or csv)", ErrUnknownFormat, f)
}
