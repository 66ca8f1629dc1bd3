package trace

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

// readStream opens data as Open opens a file named name and reads up to
// fuzzLimit records; the error is "" at the end of the input.
func readStream(data []byte, name string) ([]Record, string) {
	r, src, err := openStream(bytes.NewReader(data), name, OpenOptions{})
	if err != nil {
		return nil, err.Error()
	}
	defer src.Close()
	var out []Record
	for len(out) < fuzzLimit {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return out, err.Error()
		}
		out = append(out, rec)
	}
	return out, ""
}

// FuzzOpenCompressed checks the decompressing path of Open: a gzip or
// zstd copy of any input gives the records and the error (file, line,
// column and message) of the input itself, and a damaged stream (the
// input after a gzip or zstd magic number) is an error, not a panic.
func FuzzOpenCompressed(f *testing.F) {
	f.Add([]byte(`{"op":"access","time":1,"block":2}` + "\n" + `{"op":"free","time":0,"block":2}`))
	f.Add([]byte(`{"timestamp": 0, "input_length": 1000, "output_length": 3, "hash_ids": [0, 14]}`))
	f.Add([]byte(`{"timestamp": "7", "input_length": 9, "output_length": 600, "hash_ids": [5, 6, 7]}` + "\n" +
		`{"timestamp": "3", "input_length": 1, "output_length": 0, "hash_ids": [5]}`))
	f.Add([]byte("time,block,op\n1,2,access\n3,x,free\n"))
	f.Add([]byte{})
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, 0x29, 0, 0, 'h', 'e', 'l', 'l', 'o'})
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, magic := range [][]byte{gzipMagic, zstdMagic} {
			readStream(append(bytes.Clone(magic), in...), "fuzz")
		}
		want, wantErr := readStream(in, "fuzz")
		if DetectCompression(in) != CompressionNone {
			return // one layer is decompressed: a copy of a compressed input reads as it
		}
		for _, z := range []struct {
			name string
			data []byte
		}{{"gzip", gzipBytes(t, in)}, {"zstd", zstdBytes(t, in)}} {
			got, gotErr := readStream(z.data, "fuzz")
			if gotErr != wantErr || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s copy: %d records, error %q; the input itself: %d records, error %q",
					z.name, len(got), gotErr, len(want), wantErr)
			}
		}
	})
}
