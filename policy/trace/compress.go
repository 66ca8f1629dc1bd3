package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Compression is the compression of a trace file, told by its first bytes.
type Compression uint8

// Compressions Open reads.
const (
	CompressionNone Compression = iota
	CompressionGzip             // RFC 1952, magic 1f 8b; concatenated members are one stream
	CompressionZstd             // RFC 8878, magic 28 b5 2f fd
)

var compressionNames = [...]string{"none", "gzip", "zstd"}

// String returns the compression's name: none, gzip or zstd.
func (c Compression) String() string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return "unknown"
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// zstdMaxWindow bounds the window a zstd stream may ask for, and so the
// decoder's memory, whatever the input (zstd -19 uses 8 MiB, --long 128 MiB).
const zstdMaxWindow = 256 << 20

// DetectCompression tells the compression of a stream from its first bytes
// (at least 4 of them, unless the stream is shorter): the gzip or zstd
// magic number, else CompressionNone. File names play no part.
func DetectCompression(head []byte) Compression {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return CompressionGzip
	case bytes.HasPrefix(head, zstdMagic):
		return CompressionZstd
	}
	return CompressionNone
}

// Decompress returns the decompressed stream of r if r starts with the gzip
// or zstd magic number, else r's bytes as they are, and which it found.
// The stream decompresses as it is read, in memory bounded by the format's
// window (at most 256 MiB for zstd, 32 kiB for gzip) whatever the
// input's length. Closing it releases the decompressor, not r. A corrupt
// or truncated compressed stream is an error of a Read that names the
// compression: "gzip stream: unexpected EOF".
func Decompress(r io.Reader) (io.ReadCloser, Compression, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(zstdMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, CompressionNone, err
	}
	c := DetectCompression(head)
	switch c {
	case CompressionGzip:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, c, fmt.Errorf("gzip stream: %w", err)
		}
		// gzip's Close only repeats a read error, reported already
		return &decompressor{r: zr, c: c, close: func() error { zr.Close(); return nil }}, c, nil
	case CompressionZstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
		if err != nil {
			return nil, c, fmt.Errorf("zstd stream: %w", err)
		}
		return &decompressor{r: zr, c: c, close: func() error { zr.Close(); return nil }}, c, nil
	}
	return io.NopCloser(br), c, nil
}

// decompressor names its compression in read errors.
type decompressor struct {
	r     io.Reader
	c     Compression
	close func() error
}

func (d *decompressor) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s stream: %w", d.c, err)
	}
	return n, err
}

func (d *decompressor) Close() error { return d.close() }

// trimCompressedExt drops a compression suffix (.gz, .gzip, .zst, .zstd)
// from a file name, so that "t.csv.gz" has the extension ".csv".
func trimCompressedExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gz", ".gzip", ".zst", ".zstd":
		return strings.TrimSuffix(name, filepath.Ext(name))
	}
	return name
}
