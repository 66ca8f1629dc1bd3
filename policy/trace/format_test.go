package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
)

// sampleRecords covers every field and op.
func sampleRecords() []Record {
	return []Record{
		{Op: OpAccess, Time: 0, Block: 7},
		{Op: OpAccess, Time: 1, Block: 1<<64 - 1, Write: true, Meta: policy.Meta{Size: 4096, Tenant: 3,
			Class: policy.ClassThinkActive, Priority: policy.PriorityHigh, Pinned: true, RefCount: 4,
			Lifetime: 12.25, Seq: 1<<64 - 1, Pos: 5, SeqLen: 6, MaxLen: 1 << 30}},
		{Op: OpUpdate, Time: 1, Block: 9, Meta: policy.Meta{Class: policy.ClassThinkComplete, Lifetime: -1e-9}},
		{Op: OpFree, Time: 1 << 62, Block: 9, Meta: policy.Meta{Class: policy.ClassOutputCritical, Priority: policy.PriorityLow}},
	}
}

func TestWritersRoundTrip(t *testing.T) {
	gen := mustWorkload(t, "reasoning", WorkloadParams{Seed: 7, Steps: 300})
	for _, recs := range [][]Record{sampleRecords(), gen, nil} {
		for _, f := range []struct {
			name  string
			write func(*bytes.Buffer) Writer
			read  func(*bytes.Buffer) Reader
		}{
			{"jsonl", func(b *bytes.Buffer) Writer { return NewJSONLWriter(b) }, func(b *bytes.Buffer) Reader { return NewJSONL(b, "x") }},
			{"csv", func(b *bytes.Buffer) Writer { return NewCSVWriter(b) }, func(b *bytes.Buffer) Reader { return NewCSV(b, "x") }},
		} {
			var buf bytes.Buffer
			n, err := Copy(f.write(&buf), &sliceReader{recs: recs})
			if err != nil || n != int64(len(recs)) {
				t.Fatalf("%s: Copy = %d, %v", f.name, n, err)
			}
			got := collect(t, f.read(&buf))
			if len(got) != len(recs) || (len(recs) > 0 && !reflect.DeepEqual(got, recs)) {
				t.Errorf("%s: round trip changed the records:\n got %+v\nwant %+v", f.name, got, recs)
			}
		}
	}
}

func TestWritersRejectBadRecords(t *testing.T) {
	for _, w := range []Writer{NewJSONLWriter(&bytes.Buffer{}), NewCSVWriter(&bytes.Buffer{})} {
		for _, r := range []Record{{Op: 9}, {Meta: policy.Meta{Priority: 3}}, {Meta: policy.Meta{Size: -1}}} {
			if err := w.Write(r); err == nil {
				t.Errorf("%T accepted %+v", w, r)
			}
		}
	}
}

// sliceReader replays records from memory.
type sliceReader struct {
	recs []Record
	i    int
}

func (s *sliceReader) Next() (Record, error) {
	if s.i == len(s.recs) {
		return Record{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

func TestJSONLErrors(t *testing.T) {
	checkParseErrors(t, func(r io.Reader) Reader { return NewJSONL(r, "f.jsonl") }, []parseErrorCase{
		{`{"op":"access","time":1}`, "f.jsonl:1: field block: missing"},
		{`{"time":1,"block":2}`, "f.jsonl:1: field op: missing"},
		{`{"op":"access","block":2}`, "f.jsonl:1: field time: missing"},
		{`{"op":"read","time":1,"block":2}`, `f.jsonl:1:2: field op: unknown op "read"`},
		{`{"op":"access","time":1,"block":2,"colour":3}`, `f.jsonl:1:35: field colour: unknown field "colour"`},
		{`{"op":"access","time":1,"block":-2}`, `f.jsonl:1:34: field block: cannot use JSON number -2 as uint64`},
		{`{"op":"access","time":1,"block":2,"class":"hot"}`, `f.jsonl:1:35: field class: unknown class "hot"`},
		{`{"op":"access","time":1,"block":2,"priority":3}`, `f.jsonl:1:35: field priority: 3 out of range`},
		{`{"op":"access","time":1,"block":2,"size":-3}`, `field size: -3 is negative`},
		{`{"op":"access","time":1,"block":2} {}`, `f.jsonl:1:36: data after the JSON object`},
		{`{"op":"access","time":1,"block":2`, `f.jsonl:1:`},
		{"{\"op\":\"access\",\"time\":5,\"block\":2}\n\n{\"op\":\"access\",\"time\":4,\"block\":2}",
			`f.jsonl:3:16: field time: 4 goes back in time (previous record at 5)`},
	})
}

func TestCSVErrors(t *testing.T) {
	checkParseErrors(t, func(r io.Reader) Reader { return NewCSV(r, "f.csv") }, []parseErrorCase{
		{"", "f.csv:1: no header row"},
		{"time,block\n1,2\n", "f.csv:1: field op: required column missing"},
		{"time,block,op,colour\n", "f.csv:1:15: field colour: unknown column"},
		{"time,block,op,time\n", "f.csv:1:15: field time: column given twice"},
		{"time,block,op\n1,2\n", "f.csv:2:"},
		{"time,block,op\n1,x,access\n", `f.csv:2:3: field block: "x": invalid syntax`},
		{"time,block,op\n1,2,\n", `f.csv:2:5: field op: empty`},
		{"time,block,op,priority\n1,2,access,300\n", `f.csv:2:12: field priority: "300": value out of range`},
		{"time,block,op,priority\n1,2,access,3\n", `f.csv:2:12: field priority: 3 out of range`},
		{"time,block,op,lifetime\n1,2,access,NaN\n", `f.csv:2:12: field lifetime: NaN is not a finite number`},
		{"time,block,op,write\n1,2,access,maybe\n", `f.csv:2:12: field write: "maybe": invalid syntax`},
		{"time,block,op\n5,2,access\n4,2,free\n", `f.csv:3:1: field time: 4 goes back in time`},
		{"time,block,op\n\"5,2,access\n", `f.csv:2:`},
	})
}

func TestCSVOptionalColumns(t *testing.T) {
	in := "op, block ,time,class,pinned\naccess,3,1,think_active,1\nfree,3,2,,\n"
	got := collect(t, NewCSV(strings.NewReader(strings.ReplaceAll(in, " block ", "block")), "f.csv"))
	want := []Record{
		{Op: OpAccess, Time: 1, Block: 3, Meta: policy.Meta{Class: policy.ClassThinkActive, Pinned: true}},
		{Op: OpFree, Time: 2, Block: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestOpenDetectsFormat(t *testing.T) {
	dir := t.TempDir()
	recs := sampleRecords()
	write := func(name string, w func(f *os.File) Writer) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		wr := w(f)
		if _, err := Copy(wr, &sliceReader{recs: recs}); err != nil {
			t.Fatal(err)
		}
		if err := wr.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jsonl := write("a.jsonl", func(f *os.File) Writer { return NewJSONLWriter(f) })
	csvFile := write("a.csv", func(f *os.File) Writer { return NewCSVWriter(f) })
	noExt := write("a", func(f *os.File) Writer { return NewCSVWriter(f) })
	moon := filepath.Join(dir, "m.jsonl")
	if err := os.WriteFile(moon, []byte("\n"+`{"timestamp":1,"input_length":1,"output_length":0,"hash_ids":[4]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		want []Record
	}{
		{jsonl, recs}, {csvFile, recs}, {noExt, recs},
		{moon, []Record{{Op: OpAccess, Block: 4, Meta: policy.Meta{Size: 512 * KVBytesLlama2_70B,
			Priority: policy.PriorityNormal, RefCount: 1, SeqLen: 1, MaxLen: 1}}}},
	} {
		c, err := Open(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, c)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.path, got, tt.want)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("Open(empty file) error %v, want ErrUnknownFormat", err)
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing) error %v, want ErrNotExist", err)
	}
}

func TestParseFormatAndNewWriter(t *testing.T) {
	for _, f := range []Format{FormatJSONL, FormatMooncake, FormatCSV, FormatLMBench} {
		if got, err := ParseFormat(f.String()); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
	}
	if _, err := ParseFormat("unknown"); !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("ParseFormat(unknown) error %v", err)
	}
	for _, f := range []Format{FormatJSONL, FormatCSV} {
		if _, err := NewWriter(&bytes.Buffer{}, f); err != nil {
			t.Errorf("NewWriter(%v): %v", f, err)
		}
	}
	for _, f := range []Format{FormatMooncake, FormatLMBench} {
		if _, err := NewWriter(&bytes.Buffer{}, f); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("NewWriter(%v) error %v, want ErrUnknownFormat", f, err)
		}
	}
}
