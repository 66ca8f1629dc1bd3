package guest

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// cpioEntry is one entry read back by readCPIO.
type cpioEntry struct {
	name       string
	mode       uint32
	rmaj, rmin uint32
	data       string
}

// readCPIO is an independent newc reader for the tests.
func readCPIO(t *testing.T, b []byte) []cpioEntry {
	t.Helper()
	var out []cpioEntry
	off := 0
	field := func(i int) uint32 {
		v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
		if err != nil {
			t.Fatalf("offset %d field %d: %v", off, i, err)
		}
		return uint32(v)
	}
	for {
		if off%4 != 0 {
			t.Fatalf("entry at unaligned offset %d", off)
		}
		if string(b[off:off+6]) != "070701" {
			t.Fatalf("offset %d: magic %q", off, b[off:off+6])
		}
		mode, size, rmaj, rmin, nameSize := field(1), field(6), field(9), field(10), field(11)
		name := string(b[off+110 : off+110+int(nameSize)-1])
		if b[off+110+int(nameSize)-1] != 0 {
			t.Fatalf("%s: name not NUL-terminated", name)
		}
		dataOff := (off + 110 + int(nameSize) + 3) &^ 3
		data := string(b[dataOff : dataOff+int(size)])
		off = (dataOff + int(size) + 3) &^ 3
		if name == "TRAILER!!!" {
			if off != len(b) {
				t.Fatalf("%d bytes after the trailer", len(b)-off)
			}
			return out
		}
		out = append(out, cpioEntry{name, mode, rmaj, rmin, data})
	}
}

func TestCPIOWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	c := NewCPIOWriter(&buf)
	steps := []error{
		c.File("/usr/bin/tool", 0o755, []byte("abcde")),
		c.Symlink("bin/sh", "/bin/busybox"),
		c.CharDev("dev/console", 0o600, 5, 1),
		c.Dir("usr", 0o755), // already there: no second entry
		c.File("empty", 0o644, nil),
		c.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got := readCPIO(t, buf.Bytes())
	want := []cpioEntry{
		{name: "usr", mode: modeDir | 0o755},
		{name: "usr/bin", mode: modeDir | 0o755},
		{name: "usr/bin/tool", mode: modeRegular | 0o755, data: "abcde"},
		{name: "bin", mode: modeDir | 0o755},
		{name: "bin/sh", mode: modeSymlink | 0o777, data: "/bin/busybox"},
		{name: "dev", mode: modeDir | 0o755},
		{name: "dev/console", mode: modeCharDev | 0o600, rmaj: 5, rmin: 1},
		{name: "empty", mode: modeRegular | 0o644},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("entries\n got %v\nwant %v", got, want)
	}
}

func TestCPIOWriterErrors(t *testing.T) {
	tests := []struct {
		name string
		do   func(c *CPIOWriter) error
	}{
		{"empty name", func(c *CPIOWriter) error { return c.File("", 0o644, nil) }},
		{"root", func(c *CPIOWriter) error { return c.File("/", 0o644, nil) }},
		{"dot dot only", func(c *CPIOWriter) error { return c.File("../..", 0o644, nil) }},
		{"twice", func(c *CPIOWriter) error {
			_ = c.File("a", 0o644, nil)
			return c.Symlink("a", "b")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCPIOWriter(&bytes.Buffer{})
			if err := tt.do(c); !errors.Is(err, ErrBadPath) {
				t.Errorf("got %v, want ErrBadPath", err)
			}
		})
	}
	c := NewCPIOWriter(&bytes.Buffer{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.File("late", 0o644, nil); err == nil {
		t.Error("File after Close succeeded")
	}
}
