package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// gzipBytes compresses b with gzip.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zstdBytes compresses b with zstd.
func zstdBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeFile writes b to dir/name and returns the path.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readPath opens path with Open and reads it to its first error.
func readPath(t testing.TB, path string) ([]Record, error) {
	t.Helper()
	c, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing %s: %v", path, err)
		}
	}()
	recs, err := collectErr(c)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return recs, err
}

// TestOpenCompressed reads every format gzip- and zstd-compressed, named
// as compressed files are and named as plain ones: the records are the
// plain file's.
func TestOpenCompressed(t *testing.T) {
	dir := t.TempDir()
	var jsonl, csvText bytes.Buffer
	if _, err := Copy(NewJSONLWriter(&jsonl), &sliceReader{recs: sampleRecords()}); err != nil {
		t.Fatal(err)
	}
	if _, err := Copy(NewCSVWriter(&csvText), &sliceReader{recs: sampleRecords()}); err != nil {
		t.Fatal(err)
	}
	lmb, err := os.ReadFile(lmbenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	moon := []byte(`{"timestamp": 0, "input_length": 1000, "output_length": 100, "hash_ids": [7, 8]}` + "\n")
	for _, in := range []struct {
		name string
		text []byte
	}{{"a.jsonl", jsonl.Bytes()}, {"a.csv", csvText.Bytes()}, {"m.jsonl", moon}, {"l.jsonl", lmb}} {
		want, err := readPath(t, writeFile(t, dir, in.name, in.text))
		if err != nil || len(want) == 0 {
			t.Fatalf("%s: %d records, %v", in.name, len(want), err)
		}
		for _, z := range []struct {
			ext  string
			data []byte
		}{{".gz", gzipBytes(t, in.text)}, {".zst", zstdBytes(t, in.text)}} {
			// by magic bytes, whatever the name (a CSV file needs its
			// name or a first line that is not JSON, which it has)
			for _, name := range []string{in.name + z.ext, "z" + z.ext + "-" + in.name, "z" + z.ext + "-noext"} {
				got, err := readPath(t, writeFile(t, dir, name, z.data))
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %d records, %v; want the %d of %s", name, len(got), err, len(want), in.name)
				}
			}
		}
	}
}

// TestOpenCompressedEdges covers what only compressed files have.
func TestOpenCompressedEdges(t *testing.T) {
	dir := t.TempDir()
	line := []byte(`{"op":"access","time":1,"block":2}` + "\n")
	// concatenated gzip members are one stream
	two := append(gzipBytes(t, line), gzipBytes(t, line)...)
	if got, err := readPath(t, writeFile(t, dir, "two.jsonl.gz", two)); err != nil || len(got) != 2 {
		t.Errorf("two gzip members: %d records, %v; want 2", len(got), err)
	}
	// a name that says gzip does not make plain text gzip
	if got, err := readPath(t, writeFile(t, dir, "plain.jsonl.gz", line)); err != nil || len(got) != 1 {
		t.Errorf("plain text named .gz: %d records, %v; want 1", len(got), err)
	}
	// an empty stream: the name, less .gz or .zst, breaks the tie
	for _, tt := range []struct {
		name string
		data []byte
		want Format
	}{{"e.jsonl.gz", gzipBytes(t, nil), FormatJSONL}, {"e.csv.zst", zstdBytes(t, nil), FormatCSV}} {
		f, err := Detect(bytes.NewReader(tt.data), tt.name)
		if err != nil || f != tt.want {
			t.Errorf("Detect(%s) = %v, %v; want %v", tt.name, f, err, tt.want)
		}
	}
	if _, err := Detect(bytes.NewReader(gzipBytes(t, nil)), "e.gz"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Detect(empty e.gz) error %v, want ErrUnknownFormat", err)
	}
	for _, tt := range []struct {
		data []byte
		want Compression
	}{{gzipBytes(t, line), CompressionGzip}, {zstdBytes(t, line), CompressionZstd}, {line, CompressionNone}, {[]byte{0x1f}, CompressionNone}} {
		r, c, err := Decompress(bytes.NewReader(tt.data))
		if err != nil || c != tt.want {
			t.Errorf("Decompress(% x...) = %v, %v; want %v", tt.data[:1], c, err, tt.want)
			continue
		}
		if b, err := io.ReadAll(r); err != nil || (len(tt.data) > 1 && !bytes.Equal(b, line)) {
			t.Errorf("Decompress(% x...) read %q, %v", tt.data[:1], b, err)
		}
		r.Close()
	}
}

// TestCompressedErrors checks that errors name the file and the line and
// column of the decompressed text, and that a damaged stream is an error
// naming its compression.
func TestCompressedErrors(t *testing.T) {
	dir := t.TempDir()
	text := []byte("{\"op\":\"access\",\"time\":1,\"block\":2}\n\n{\"op\":\"access\",\"time\":1,\"block\":2,\"colour\":3}\n")
	for _, z := range []struct {
		ext  string
		data []byte
	}{{".gz", gzipBytes(t, text)}, {".zst", zstdBytes(t, text)}} {
		path := writeFile(t, dir, "bad.jsonl"+z.ext, z.data)
		recs, err := readPath(t, path)
		var pe *ParseError
		want := path + `:3:35: field colour: unknown field "colour"`
		if len(recs) != 1 || !errors.As(err, &pe) || err.Error() != want {
			t.Errorf("%s: %d records, error %v; want 1 and %s", path, len(recs), err, want)
		}
	}
	long := bytes.Repeat([]byte("{\"op\":\"access\",\"time\":1,\"block\":2}\n"), 5000)
	gz, zs := gzipBytes(t, long), zstdBytes(t, long)
	badSum := bytes.Clone(gz)
	badSum[len(badSum)-5] ^= 0xff // the CRC-32 of the trailer
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"cut.jsonl.gz", gz[:len(gz)/2], "gzip stream: unexpected EOF"},
		{"sum.jsonl.gz", badSum, "gzip stream: gzip: invalid checksum"},
		{"cut.jsonl.zst", zs[:len(zs)/2], "zstd stream: "},
		{"head.jsonl.gz", gz[:5], "gzip stream: unexpected EOF"},
	} {
		path := writeFile(t, dir, tt.name, tt.data)
		_, err := readPath(t, path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming the file and containing %q", tt.name, err, tt.want)
		}
	}
}
