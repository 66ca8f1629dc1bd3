package trace

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestColumnIndexes checks the col* constants against Columns.
func TestColumnIndexes(t *testing.T) {
	for i, want := range map[int]string{colOp: "op", colTime: "time", colBlock: "block", colWrite: "write",
		colTenant: "tenant", colClass: "class", colPriority: "priority", colPinned: "pinned", colRefCount: "refcount",
		colLifetime: "lifetime", colSeq: "seq", colPos: "pos", colSeqLen: "seq_len", colMaxLen: "max_len",
		colSize: "size"} {
		if Columns[i] != want {
			t.Errorf("Columns[%d] = %s, want %s", i, Columns[i], want)
		}
	}
}

// scanned is what a CSV reader made of one record: its fields and their
// positions, or its error.
type scanned struct {
	fields []string
	pos    [][2]int
	err    string
}

// scanStd reads in with encoding/csv set up as the CSV trace reader was.
func scanStd(in string) []scanned {
	r := csv.NewReader(strings.NewReader(in))
	r.ReuseRecord, r.TrimLeadingSpace = true, true
	var out []scanned
	for len(out) < 1000 {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(out, scanned{err: err.Error()})
		}
		s := scanned{fields: append([]string(nil), row...)}
		for i := range row {
			l, c := r.FieldPos(i)
			s.pos = append(s.pos, [2]int{l, c})
		}
		out = append(out, s)
	}
	return out
}

// scanOwn reads in with csvScanner.
func scanOwn(in string) []scanned {
	s := newCSVScanner(strings.NewReader(in))
	var out []scanned
	for len(out) < 1000 {
		err := s.read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(out, scanned{err: err.Error()})
		}
		var rec scanned
		for i := range s.n() {
			rec.fields = append(rec.fields, string(s.field(i)))
			l, c := s.fieldPos(i)
			rec.pos = append(rec.pos, [2]int{l, c})
		}
		out = append(out, rec)
	}
	return out
}

func TestCSVScannerMatchesEncodingCSV(t *testing.T) {
	for _, in := range []string{
		"", "\n\n", "a,b\n1,2\n", "a,b\r\n1,2\r\n", "a,b\n1,2", "a,b\n1,2\r", " a, b\n 1 ,\t2\n",
		"a,b\n1\n", "a,b\n1,2,3\n", `a,"b"` + "\n" + `"1",2` + "\n", "a,b\n\"x\ny\",2\n", "a,b\n\"x\"\"y\",2\n",
		"a,b\n\"x\"y,2\n", "a,b\n1,x\"y\n", "a,b\n\"unterminated\n", "a\n\u00a0\u2003x\n", "a,b\n \n",
		"a,b\n1,   \n", "a,b\n\"1\"\n", "a\n\"\"\n", "a,b\n1,\"2\"\r\n", "a\n\xff\xfe\n", "a\n\"x\r\ny\"\n",
	} {
		if got, want := scanOwn(in), scanStd(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", in, got, want)
		}
	}
}

// FuzzCSVScanner checks that csvScanner splits any input into the records,
// fields, positions and errors encoding/csv does.
func FuzzCSVScanner(f *testing.F) {
	for _, s := range []string{"time,block,op\n1,2,access\n", "a,b\r\n\"x\ny\",2\n", " a,\t\"b\"\"\"\n1,2,3\n",
		"a\n\"open\n", "a,b\n1,x\"y\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := scanOwn(in), scanStd(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", in, got, want)
		}
	})
}

func TestPlainUint(t *testing.T) {
	tests := []struct {
		in   string
		max  uint64
		want uint64
		ok   bool
	}{
		{"0", 9, 0, true}, {"7", 9, 7, true}, {"12345678", 1 << 62, 12345678, true},
		{"00000001", 9, 1, true}, {"9999999999999999999", math.MaxUint64, 9999999999999999999, true},
		{"1234567890123456", 1 << 62, 1234567890123456, true}, {"10", 9, 10, false},
		{"1234567a", 1 << 62, 0, false}, {"1234567/", 1 << 62, 0, false}, {"123456789:", 1 << 62, 0, false},
		{"12345678\x00", 1 << 62, 0, false}, {"\xff2345678", 1 << 62, 0, false}, {"", 9, 0, false},
		{"12345678901234567890", math.MaxUint64, 0, false}, {"-1", 9, 0, false}, {" 1", 9, 0, false},
	}
	for _, tt := range tests {
		var got uint64
		ok := plainUint([]byte(tt.in), tt.max, &got)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("plainUint(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if want, err := strconv.ParseUint(tt.in, 10, 64); ok && (err != nil || want != got) {
			t.Errorf("plainUint(%q) = %d, strconv says %d, %v", tt.in, got, want, err)
		}
	}
}
