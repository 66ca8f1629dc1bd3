package numa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNodeRoom: a zone's free pages count above high + boost + its
// protection against movable allocations. Node 0's DMA zone has 15 MiB
// free that its protection (7755 pages) keeps from user pages; DMA32 keeps
// high 9847 + boost 100 + protection 4736 of its 20000.
func TestNodeRoom(t *testing.T) {
	proc := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "zoneinfo", "two-node"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "zoneinfo"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		node  int
		pages uint64
		err   error
	}{
		{0, 20000 - 9847 - 100 - 4736, nil},
		{1, 262144 - 1500, nil},
		{2, 0, ErrNoNode},
	} {
		got, err := NodeRoom(proc, tc.node)
		if !errors.Is(err, tc.err) || got != tc.pages*uint64(PageSize) {
			t.Errorf("NodeRoom(node %d) = %d, %v; want %d pages, %v", tc.node, got, err, tc.pages, tc.err)
		}
	}
	if _, err := NodeRoom(t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "node 0") {
		t.Errorf("NodeRoom without zoneinfo = %v, want an error naming node 0", err)
	}
}

func TestParseZoneinfoErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Node x, zone DMA\n", "line 1"},
		{"Node 0, zone DMA\n  pages free lots\n", "free"},
		{"Node 0, zone DMA\n        high     -1\n", "high"},
		{"Node 0, zone DMA\n        protection: (0, a)\n", "protection"},
	} {
		_, err := parseZoneinfo([]byte(tc.in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseZoneinfo(%q) = %v, want ErrParse mentioning %q", tc.in, err, tc.want)
		}
	}
}

func FuzzParseZoneinfo(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "zoneinfo", "two-node"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("Node 0, zone DMA\n        protection: ()\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		zones, err := parseZoneinfo(in)
		if err != nil && !errors.Is(err, ErrParse) {
			t.Fatalf("error %v does not wrap ErrParse", err)
		}
		if err == nil && len(zones) > 0 {
			_ = movableClass(zones)
		}
	})
}
