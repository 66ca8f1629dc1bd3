package numa

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

const fixtureProc = "testdata/proc"

func TestParseStat(t *testing.T) {
	tests := []struct {
		in    string
		comm  string
		start uint64
		cpu   time.Duration
		bad   string // substring of the error
	}{
		{"1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 42 100 10 18446744073709551615\n", "init", 42, 110 * time.Millisecond, ""},
		{"7 (a b) c)) R 0 1 1 0 -1 4194560 1 2 3 4 500 6 7 8 20 0 1 0 99 100 10", "a b) c)", 99, 5060 * time.Millisecond, ""},
		{"7 (x) S 1 2 3", "", 0, 0, "fields after comm"},
		{"7 x S", "", 0, 0, "no (comm)"},
		{"abc (x) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 99", "", 0, 0, "pid"},
		{"7 (x) SS 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 99", "", 0, 0, "state"},
		{"7 (x) S 0 1 1 0 -1 4194560 1 2 3 4 x 6 7 8 20 0 1 0 99", "", 0, 0, "field 14"},
		{"7 (x) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 -5", "", 0, 0, "starttime"},
	}
	for _, tt := range tests {
		s, err := ParseStat([]byte(tt.in))
		if tt.bad != "" {
			if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("ParseStat(%q): %v, want ErrParse about %s", tt.in, err, tt.bad)
			}
			continue
		}
		if err != nil || s.Comm != tt.comm || s.StartTime != tt.start || s.CPU() != tt.cpu {
			t.Errorf("ParseStat(%q) = %+v, %v", tt.in, s, err)
		}
	}
}

func TestReadStatFixture(t *testing.T) {
	s, err := ReadStat(fixtureProc, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if s.Comm != "kv (srv) 1" || s.StartTime != 987654 || s.State != 'S' {
		t.Errorf("stat %+v", s)
	}
	if _, err := ReadStat(fixtureProc, 77); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "77/stat") {
		t.Errorf("broken stat: %v, want ErrParse naming 77/stat", err)
	}
	if _, err := ReadStat(fixtureProc, 1); !errors.Is(err, ErrProcessGone) {
		t.Errorf("missing pid: %v, want ErrProcessGone", err)
	}
	own, err := ReadStat("", os.Getpid())
	if err != nil || own.StartTime == 0 {
		t.Errorf("own stat %+v, %v", own, err)
	}
}

func TestMapsFixture(t *testing.T) {
	ms, err := ReadMaps(fixtureProc, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 9 {
		t.Fatalf("%d mappings, want 9", len(ms))
	}
	if ms[0].Path != "/usr/bin/kv server" || ms[1].Offset != 0x21000 || ms[3].Inode != 2050 || ms[3].Dev != "00:01" {
		t.Errorf("fields: %+v %+v %+v", ms[0], ms[1], ms[3])
	}
	tests := []struct {
		name   string
		got    Maps
		starts []uintptr
	}{
		{"memfd by name", ms.Named("memfd:kvcache"), []uintptr{0x7f1000000000}},
		{"memfd bare", ms.Named("kvcache"), []uintptr{0x7f1000000000}},
		{"memfd raw path", ms.Named("/memfd:kvcache (deleted)"), []uintptr{0x7f1000000000}},
		{"anon name", ms.Named("[anon:kv-blocks]"), []uintptr{0x7f1040000000}},
		{"anon bare", ms.Named("kv-blocks"), []uintptr{0x7f1040000000}},
		{"file with space", ms.Named("/usr/bin/kv server"), []uintptr{0x55d4c0a00000, 0x55d4c0a21000}},
		{"no match", ms.Named("kv"), nil},
		{"at least 2 MiB", ms.AtLeast(2 << 20), []uintptr{0x55d4c1c00000, 0x7f1000000000, 0x7f1040000000, 0x7f1040400000}},
		{"range", ms.Overlapping(0x7f1040100000, 0x7f1040400001), []uintptr{0x7f1040000000, 0x7f1040200000, 0x7f1040400000}},
	}
	for _, tt := range tests {
		var starts []uintptr
		for _, m := range tt.got {
			starts = append(starts, m.Start)
		}
		if len(starts) != len(tt.starts) {
			t.Errorf("%s: %#x, want %#x", tt.name, starts, tt.starts)
			continue
		}
		for i := range starts {
			if starts[i] != tt.starts[i] {
				t.Errorf("%s: %#x, want %#x", tt.name, starts, tt.starts)
			}
		}
	}
	if m, ok := ms.At(0x7f1000000010); !ok || !m.Deleted() || m.Name() != "memfd:kvcache" {
		t.Errorf("At: %+v %v", m, ok)
	}
}

func TestParseMapsErrors(t *testing.T) {
	tests := []struct{ in, where string }{
		{"zz-10 rw-p 0 00:00 0\n", "line 1 col 1"},
		{"10-20 rw-p 0 00:00 0\n20-10 rw-p 0 00:00 0\n", "line 2 col 1"},
		{"10-20 rw-p 0 00:00 0\n18-30 rw-p 0 00:00 0\n", "line 2 col 1: mapping 0x18 overlaps"},
		{"10-20 rwxps 0 00:00 0\n", "line 1 col 7"},
		{"10-20 rw-p zz 00:00 0\n", "line 1 col 12"},
		{"10-20 rw-p 0 0000 0\n", "line 1 col 14"},
		{"10-20 rw-p 0 00:00 x\n", "line 1 col 20"},
		{"10-20 rw-p 0\n", "line 1 col 13: 3 fields"},
	}
	for _, tt := range tests {
		_, err := ParseMaps(strings.NewReader(tt.in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), tt.where) {
			t.Errorf("ParseMaps(%q): %v, want ErrParse at %s", tt.in, err, tt.where)
		}
	}
	if _, err := ReadMaps(fixtureProc, 77); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "77/maps") {
		t.Errorf("broken maps: %v, want ErrParse naming 77/maps", err)
	}
}

func TestHugeBackingFixture(t *testing.T) {
	tests := []struct {
		start, end uintptr
		want       HugeBacking
	}{
		{0x7f1040000000, 0x7f1040200000, HugeBacking{Mappings: 1, Size: 2 << 20, Rss: 2 << 20, AnonHugePages: 2 << 20, THPEligible: true}},
		{0x55d4c1c00000, 0x55d4c1c01000, HugeBacking{Mappings: 1, Size: 2 << 20, Rss: 1 << 20}},
		{0x7f1000000000, 0x7f1040000001, HugeBacking{Mappings: 2, Size: 1<<30 + 2<<20, Rss: 512<<20 + 2<<20,
			AnonHugePages: 2 << 20, ShmemPmd: 256 << 20, THPEligible: true}},
		{0x1000, 0x2000, HugeBacking{}},
	}
	for _, tt := range tests {
		h, err := ReadHugeBacking(fixtureProc, 4242, tt.start, tt.end)
		if err != nil {
			t.Fatal(err)
		}
		if h != tt.want {
			t.Errorf("%#x-%#x: %+v, want %+v", tt.start, tt.end, h, tt.want)
		}
		if h.Huge() != (tt.want.AnonHugePages+tt.want.ShmemPmd > 0) {
			t.Errorf("%#x-%#x: Huge() = %v", tt.start, tt.end, h.Huge())
		}
	}
	for in, where := range map[string]string{
		"10-20 rw-p 0 00:00 0\nRss: many kB\n": "line 2",
		"Rss: 4 kB\n":                          "line 1",
		"10-20 rw-p 0 00:00 0\nzz-1 rw-p\n":    "line 2 col",
	} {
		_, err := ParseSmaps(strings.NewReader(in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), where) {
			t.Errorf("bad smaps %q: %v, want ErrParse at %s", in, err, where)
		}
	}
}

// TestHugeBackingOwnTHP maps a THP-eligible buffer and reads its backing
// from this process's smaps; the kernel decides whether a THP is used.
func TestHugeBackingOwn(t *testing.T) {
	b := testBuffer(t, 1024)
	h, err := ReadHugeBacking("", os.Getpid(), bufAddr(b), bufAddr(b)+uintptr(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if h.Mappings == 0 || h.Rss < uint64(len(b)) || h.AnonHugePages != 0 {
		t.Errorf("MADV_NOHUGEPAGE buffer: %+v, want rss >= %d and no huge pages", h, len(b))
	}
}

func FuzzParseMaps(f *testing.F) {
	for _, p := range []string{"testdata/proc/4242/maps", "testdata/proc/77/maps"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := ParseMaps(strings.NewReader(string(b)))
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		for i, m := range ms {
			if m.End <= m.Start || (i > 0 && m.Start < ms[i-1].End) {
				t.Fatalf("mapping %d %+v is empty or out of order", i, m)
			}
		}
	})
}

func FuzzParseStat(f *testing.F) {
	for _, p := range []string{"testdata/proc/4242/stat", "testdata/proc/77/stat"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("7 (a b) c)) R 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 99"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStat(b)
		if err != nil {
			if !errors.Is(err, ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		if s.PID <= 0 || strings.Count(string(b), "(") == 0 {
			t.Fatalf("accepted %q as %+v", b, s)
		}
	})
}
