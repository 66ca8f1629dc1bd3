package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// benchFile writes a long_context trace of n accesses in format f.
func benchFile(b *testing.B, f Format, n int) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, f)
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewWorkload("long_context", WorkloadParams{Steps: n, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Copy(w, r); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkReaders(b *testing.B) {
	for _, tt := range []struct {
		format Format
		read   func(io.Reader) Reader
	}{
		{FormatJSONL, func(r io.Reader) Reader { return NewJSONL(r, "bench") }},
		{FormatCSV, func(r io.Reader) Reader { return NewCSV(r, "bench") }},
	} {
		b.Run(tt.format.String(), func(b *testing.B) {
			data := benchFile(b, tt.format, 100_000)
			b.SetBytes(int64(len(data)))
			records := 0
			for b.Loop() {
				r := tt.read(bytes.NewReader(data))
				for {
					if _, err := r.Next(); err != nil {
						if !errors.Is(err, io.EOF) {
							b.Fatal(err)
						}
						break
					}
					records++
				}
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func BenchmarkGenerators(b *testing.B) {
	for _, w := range Workloads() {
		b.Run(w.Name, func(b *testing.B) {
			records := 0
			for b.Loop() {
				r, err := NewWorkload(w.Name, WorkloadParams{Steps: 100_000, Pages: 1000, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := r.Next(); err != nil {
						break
					}
					records++
				}
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
