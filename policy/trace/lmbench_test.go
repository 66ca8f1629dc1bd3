package trace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const lmbenchFixture = "testdata/lmbench.jsonl"

// lmbenchWant is what a record of testdata/lmbench.jsonl must be.
type lmbenchWant struct {
	block                     uint64
	write                     bool
	time                      int64
	seq                       uint64
	pos, seqLen, maxLen, refs int32
}

func lmbenchGot(r Record) lmbenchWant {
	return lmbenchWant{r.Block, r.Write, r.Time, r.Meta.Seq, r.Meta.Pos, r.Meta.SeqLen, r.Meta.MaxLen, r.Meta.RefCount}
}

// TestLMBenchRecords replays the fixture: requests in time order (ties in
// file order), any number of hash ids, decode blocks from the lengths.
func TestLMBenchRecords(t *testing.T) {
	d := DecodeBlockBit
	wants := []lmbenchWant{
		// line 2, 1700000000001000000: 600 tokens in 3 ids, 10 more fit the prompt's 2 blocks of 512
		{11, false, 0, 0, 0, 3, 3, 1}, {12, false, 1, 0, 1, 3, 3, 1}, {20, false, 2, 0, 2, 3, 3, 1},
		// line 5, the same time as a number: no prompt, 600 output tokens in 2 decode blocks
		{d, true, 3, 1, 0, 1, 2, 1}, {d + 1, true, 4, 1, 1, 2, 2, 1},
		// line 4, 1700000000002000000
		{30, false, 5, 2, 0, 1, 1, 1},
		// line 1, 1700000000003000000: 100+1000 tokens are 3 blocks, the prompt's 100 are 1: 2 decode blocks
		{11, false, 6, 3, 0, 4, 6, 2}, {12, false, 7, 3, 1, 4, 6, 2}, {13, false, 8, 3, 2, 4, 6, 1},
		{14, false, 9, 3, 3, 4, 6, 1}, {d + 2, true, 10, 3, 4, 5, 6, 1}, {d + 3, true, 11, 3, 5, 6, 6, 1},
	}
	f, err := os.Open(lmbenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := NewLMBench(f, lmbenchFixture, MooncakeOptions{})
	recs := collect(t, m)
	if len(recs) != len(wants) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(wants), recs)
	}
	for i, w := range wants {
		if got := lmbenchGot(recs[i]); got != w || recs[i].Meta.Size != 512*KVBytesLlama2_70B {
			t.Errorf("record %d = %+v size %d, want %+v", i, got, recs[i].Meta.Size, w)
		}
	}
	if m.Requests() != 4 || m.PromptBlocks() != 8 || m.DecodeBlocks() != 4 || m.DistinctPromptBlocks() != 6 {
		t.Errorf("%d requests, %d prompt, %d decode, %d distinct prompt blocks; want 4, 8, 4, 6",
			m.Requests(), m.PromptBlocks(), m.DecodeBlocks(), m.DistinctPromptBlocks())
	}
}

// TestLMBenchTimeAndOptions checks TimeStamp (nanoseconds as they are) and
// NoDecode.
func TestLMBenchTimeAndOptions(t *testing.T) {
	c, err := OpenWith(lmbenchFixture, OpenOptions{Format: FormatLMBench, Mooncake: MooncakeOptions{NoDecode: true, Time: TimeStamp}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var blocks []uint64
	var times []int64
	for _, r := range collect(t, c) {
		blocks, times = append(blocks, r.Block), append(times, r.Time)
	}
	wantBlocks := []uint64{11, 12, 20, 30, 11, 12, 13, 14}
	wantTimes := []int64{1700000000001000000, 1700000000001000000, 1700000000001000000, 1700000000002000000,
		1700000000003000000, 1700000000003000000, 1700000000003000000, 1700000000003000000}
	if !slices.Equal(blocks, wantBlocks) || !slices.Equal(times, wantTimes) {
		t.Errorf("NoDecode, TimeStamp: blocks %v times %v, want %v %v", blocks, times, wantBlocks, wantTimes)
	}
}

// TestLMBenchDetected checks that Open tells an LMBench trace by its
// string timestamp, and a Mooncake trace by its number.
func TestLMBenchDetected(t *testing.T) {
	for _, tt := range []struct {
		first string
		want  Format
	}{
		{`{"timestamp": "1", "input_length": 1, "output_length": 0, "hash_ids": [4]}`, FormatLMBench},
		{`{"hash_ids": [4], "timestamp":"1"}`, FormatLMBench},
		{`{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [4]}`, FormatMooncake},
		{`{"timestamp" : "1", "hash_ids": [4], "input_length": }`, FormatLMBench}, // malformed: the reader reports it
		{`{"timestamp": 1, "hash_ids": [4], "input_length": }`, FormatMooncake},
		{`{"timestamp": "1", "block": 4}`, FormatJSONL},
	} {
		got, err := Detect(strings.NewReader("\n"+tt.first+"\n"), "t.jsonl")
		if err != nil || got != tt.want {
			t.Errorf("Detect(%s) = %v, %v; want %v", tt.first, got, err, tt.want)
		}
	}
}

func TestLMBenchErrors(t *testing.T) {
	ok := `{"timestamp": "3", "input_length": 10, "output_length": 1, "hash_ids": [1, 2, 3]}` + "\n"
	tests := []struct {
		line, want string
	}{
		{`{"timestamp": "-1", "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:15: field timestamp: "-1": want an integer count of nanoseconds below 2^63`},
		{`{"timestamp": "1.5", "input_length": 10, "output_length": 1, "hash_ids": [1]}`, `field timestamp: "1.5": want an integer`},
		{`{"timestamp": "", "input_length": 10, "output_length": 1, "hash_ids": [1]}`, `field timestamp: "": want an integer`},
		{`{"timestamp": "9223372036854775808", "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`field timestamp: "9223372036854775808": want an integer count of nanoseconds below 2^63`},
		{`{"timestamp": -1, "input_length": 10, "output_length": 1, "hash_ids": [1]}`, `t.jsonl:3:2: field timestamp: -1 out of range`},
		{`{"timestamp": true, "input_length": 10, "output_length": 1, "hash_ids": [1]}`, `t.jsonl:3:15: field timestamp: cannot use JSON bool as int64`},
		{`{"input_length": 10, "output_length": 1, "hash_ids": [1]}`, `t.jsonl:3: field timestamp: missing`},
		{`{"timestamp": "4", "output_length": 1, "hash_ids": [1]}`, `field input_length: missing`},
		{`{"timestamp": "4", "input_length": 10, "output_length": -1, "hash_ids": [1]}`, `field output_length: -1 out of range`},
		{`{"timestamp": "4", "input_length": 10, "output_length": 1}`, `field hash_ids: missing`},
		{`{"timestamp": "4", "input_length": 10, "output_length": 1, "hash_ids": ["a"]}`, `t.jsonl:3:`},
		{`{"timestamp": "4", "input_length": 10, "output_length": 1, "hash_ids": [9223372036854775808]}`,
			`field hash_ids: id 9223372036854775808 (index 0) at or above 2^63`},
		{`{"timestamp": "4", "input_length": 10,`, `t.jsonl:3:`},
	}
	for _, tt := range tests {
		// the bad line follows a good one and a blank line, and comes
		// before any record: the reader checks the whole input first
		recs, err := collectErr(NewLMBench(strings.NewReader(ok+"\n"+tt.line+"\n"+ok), "t.jsonl", MooncakeOptions{}))
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || pe.Line != 3 || !strings.Contains(err.Error(), tt.want) || len(recs) != 0 {
			t.Errorf("line %s: %d records, error %v; want none and a ParseError at line 3 containing %q", tt.line, len(recs), err, tt.want)
		}
	}
}

// TestNoDecodeFormats checks that OpenWith takes NoDecode for Mooncake and
// LMBench traces and refuses it, naming the format, for the others.
func TestNoDecodeFormats(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, text string
		wantErr    bool
	}{
		{"m.jsonl", `{"timestamp": 1, "input_length": 1, "output_length": 0, "hash_ids": [4]}` + "\n", false},
		{"l.jsonl", `{"timestamp": "1", "input_length": 1, "output_length": 0, "hash_ids": [4]}` + "\n", false},
		{"k.jsonl", `{"op": "access", "time": 1, "block": 4}` + "\n", true},
		{"c.csv", "op,time,block\naccess,1,4\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := OpenWith(path, OpenOptions{Mooncake: MooncakeOptions{NoDecode: true}})
			if c != nil {
				c.Close()
			}
			if got := errors.Is(err, ErrNoDecode); got != tt.wantErr || (err != nil && !tt.wantErr) {
				t.Errorf("OpenWith(%s, NoDecode) = %v, want ErrNoDecode: %v", tt.name, err, tt.wantErr)
			}
			if tt.wantErr && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}
