package trace

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// collect reads r to the end.
func collect(t testing.TB, r Reader) []Record {
	t.Helper()
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		out = append(out, rec)
		if len(out) > 10_000_000 {
			t.Fatal("reader does not end")
		}
	}
}

// mustWorkload builds a workload or fails the test.
func mustWorkload(t testing.TB, name string, p WorkloadParams) []Record {
	t.Helper()
	r, err := NewWorkload(name, p)
	if err != nil {
		t.Fatalf("NewWorkload(%s): %v", name, err)
	}
	return collect(t, r)
}

// lruHitRatio replays the accesses through an LRU cache of capacity
// blocks (freed blocks leave it) and returns hits / accesses.
func lruHitRatio(recs []Record, capacity int) float64 {
	var cache []uint64 // most recent last
	hits, accesses := 0, 0
	for _, r := range recs {
		i := slices.Index(cache, r.Block)
		switch r.Op {
		case OpFree:
			if i >= 0 {
				cache = slices.Delete(cache, i, i+1)
			}
			continue
		case OpUpdate:
			continue
		}
		accesses++
		if i >= 0 {
			hits++
			cache = slices.Delete(cache, i, i+1)
		} else if len(cache) == capacity {
			cache = cache[1:]
		}
		cache = append(cache, r.Block)
	}
	if accesses == 0 {
		return 0
	}
	return float64(hits) / float64(accesses)
}

// gaps returns, for every access that is not a block's first, the steps
// since the block's previous access.
func gaps(recs []Record) []int64 {
	last := map[uint64]int64{}
	var out []int64
	for _, r := range recs {
		if r.Op != OpAccess {
			continue
		}
		if prev, ok := last[r.Block]; ok {
			out = append(out, r.Time-prev)
		}
		last[r.Block] = r.Time
	}
	return out
}

// parseErrorCase is bad input and text its error must contain.
type parseErrorCase struct{ in, want string }

// checkParseErrors reads each case's input with a reader from open and
// wants a *ParseError that wraps ErrMalformed and contains the case's text.
func checkParseErrors(t *testing.T, open func(io.Reader) Reader, tests []parseErrorCase) {
	t.Helper()
	for _, tt := range tests {
		_, err := collectErr(open(strings.NewReader(tt.in)))
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want a ParseError containing %q", tt.in, err, tt.want)
		}
	}
}

// openMooncakeTrace opens the real Mooncake trace until the test ends, or
// skips the test when the checkout lacks it.
func openMooncakeTrace(t testing.TB) *os.File {
	t.Helper()
	requireFile(t, mooncakeTrace)
	f, err := os.Open(mooncakeTrace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
