package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
)

// writeTrace writes n requests drawn from Zipf(s) over objects objects as
// CSV both tools read: a header (kvtier needs it; cachesim is told
// has-header=true), then time,block,op,size rows of unit size. Object
// ranks are scattered over 64-bit ids so that neither tool sees dense ids.
func writeTrace(path string, n, objects int, s float64) error {
	cdf := make([]float64, objects)
	sum := 0.0
	for k := range cdf {
		sum += 1 / math.Pow(float64(k+1), s)
		cdf[k] = sum
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(42, 1))
	w.WriteString("time,block,op,size\n")
	var b []byte
	for i := range n {
		k := sort.SearchFloat64s(cdf, r.Float64()*sum)
		b = strconv.AppendInt(b[:0], int64(i+1), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, scatter(uint64(min(k, objects-1))), 10)
		b = append(b, ",access,1\n"...)
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("writing trace: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return os.Rename(path+".tmp", path)
}

// scatter maps a rank to an id below 2^53 (cachesim reads ids as numbers;
// a bijection, so distinct ranks stay distinct).
func scatter(k uint64) uint64 {
	return (k*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & (1<<53 - 1)
}

// countRequests returns the rows of a CSV trace after its header.
func countRequests(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("reading trace: %w", err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	lines := 0
	for {
		n, err := f.Read(buf)
		lines += bytes.Count(buf[:n], []byte{'\n'})
		if err == io.EOF {
			return lines - 1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("reading trace: %w", err)
		}
	}
}
