package cli

import (
	"fmt"
	"testing"
)

// FuzzParseAddrRange checks that --range either parses to a non-empty
// range that prints back to itself or fails with an error, never panics.
func FuzzParseAddrRange(f *testing.F) {
	for _, s := range []string{"1000-2000", "0x7f0000000000-0x7f0000200000", "2000-1000", "-", "0x-0x", " 10 - 20 ", "ffffffffffffffff-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseAddrRange(s)
		if err != nil {
			return
		}
		if r.End <= r.Start {
			t.Fatalf("parseAddrRange(%q) = %+v: empty range accepted", s, r)
		}
		again, err := parseAddrRange(fmt.Sprintf("%x-%x", r.Start, r.End))
		if err != nil || again != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, again, err)
		}
	})
}
