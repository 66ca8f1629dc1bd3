package trace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// mooncakeTrace is the real trace shipped with the project.
const mooncakeTrace = "/work/shared/traces/mooncake_conversation_trace.jsonl"

func requireFile(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("the Mooncake trace is not at %s in this checkout: %v", path, err)
	}
}

func TestMooncakeRealTraceCounts(t *testing.T) {
	f := openMooncakeTrace(t)
	m := NewMooncake(f, mooncakeTrace, MooncakeOptions{})
	distinct := map[uint64]bool{}
	var prompt, decode, last int64
	for {
		r, err := m.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Time < last {
			t.Fatalf("time %d after %d", r.Time, last)
		}
		last = r.Time
		if IsDecodeBlock(r.Block) {
			decode++
			if !r.Write || distinct[r.Block] {
				t.Fatalf("decode block %x: write %v, seen before %v", r.Block, r.Write, distinct[r.Block])
			}
		} else {
			prompt++
		}
		distinct[r.Block] = true
	}
	if m.Requests() != 12031 || prompt != 288500 || m.PromptBlocks() != prompt || m.DecodeBlocks() != decode {
		t.Errorf("%d requests, %d (%d) prompt blocks, want 12,031 and 288,500", m.Requests(), prompt, m.PromptBlocks())
	}
	if got := len(distinct) - int(decode); got != 182790 || m.DistinctPromptBlocks() != got {
		t.Errorf("%d (%d) distinct prompt blocks, want 182,790", got, m.DistinctPromptBlocks())
	}
	t.Logf("12031 requests: %d prompt and %d decode block accesses", prompt, decode)
}

func TestMooncakeRecords(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1000, "output_length": 100, "hash_ids": [7, 8]}
{"timestamp": 5, "input_length": 600, "output_length": 1000, "hash_ids": [7, 9], "extra": true}
`
	type want struct {
		op                        Op
		block                     uint64
		write                     bool
		time                      int64
		seq                       uint64
		pos, seqLen, maxLen, refs int32
		life                      float64
	}
	d := DecodeBlockBit
	wants := []want{
		{OpAccess, 7, false, 0, 0, 0, 2, 3, 1, 2},
		{OpAccess, 8, false, 1, 0, 1, 2, 3, 1, 1},
		{OpAccess, d, true, 2, 0, 2, 3, 3, 1, 0},
		{OpFree, d, false, 2, 0, 2, 0, 3, 1, 0},
		{OpAccess, 7, false, 3, 1, 0, 2, 4, 2, 3},
		{OpAccess, 9, false, 4, 1, 1, 2, 4, 1, 2},
		{OpAccess, d + 1, true, 5, 1, 2, 3, 4, 1, 1},
		{OpAccess, d + 2, true, 6, 1, 3, 4, 4, 1, 0},
		{OpFree, d + 1, false, 6, 1, 2, 0, 4, 1, 0},
		{OpFree, d + 2, false, 6, 1, 3, 0, 4, 1, 0},
	}
	recs := collect(t, NewMooncake(strings.NewReader(in), "t.jsonl", MooncakeOptions{FreeDecode: true, KVBytesPerToken: 10}))
	if len(recs) != len(wants) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(wants), recs)
	}
	for i, w := range wants {
		r := recs[i]
		got := want{r.Op, r.Block, r.Write, r.Time, r.Meta.Seq, r.Meta.Pos, r.Meta.SeqLen, r.Meta.MaxLen, r.Meta.RefCount, r.Meta.Lifetime}
		if got != w || r.Meta.Size != 5120 {
			t.Errorf("record %d = %+v size %d, want %+v size 5120", i, got, r.Meta.Size, w)
		}
	}

	recs = collect(t, NewMooncake(strings.NewReader(in), "t.jsonl", MooncakeOptions{NoDecode: true, Time: TimeStamp}))
	if len(recs) != 4 || recs[2].Time != 5e6 || recs[0].Meta.Size != 512*KVBytesLlama2_70B || recs[0].Meta.Lifetime != 0 {
		t.Errorf("NoDecode, TimeStamp: %+v", recs)
	}
}

func TestMooncakeErrors(t *testing.T) {
	ok := `{"timestamp": 3, "input_length": 10, "output_length": 1, "hash_ids": [1]}` + "\n"
	tests := []struct {
		line, want string
	}{
		{`{"timestamp": 1, "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:2: field timestamp: 1 goes back in time (previous request at 3)`},
		{`{"input_length": 10, "output_length": 1, "hash_ids": [1]}`, `t.jsonl:3: field timestamp: missing`},
		{`{"timestamp": 4, "output_length": 1, "hash_ids": [1]}`, `field input_length: missing`},
		{`{"timestamp": 4, "input_length": 10, "hash_ids": [1]}`, `field output_length: missing`},
		{`{"timestamp": 4, "input_length": 10, "output_length": 1}`, `field hash_ids: missing`},
		{`{"timestamp": 4, "input_length": -1, "output_length": 1, "hash_ids": []}`, `field input_length: -1 out of range`},
		{`{"timestamp": 4, "input_length": 10, "output_length": 1, "hash_ids": [1, 2]}`,
			`t.jsonl:3:58: field hash_ids: 2 ids, want ceil(input_length/512) = 1`},
		{`{"timestamp": 4, "input_length": 10, "output_length": 1, "hash_ids": [-1]}`, `t.jsonl:3:`},
		{`{"timestamp": 4, "input_length": 10, "output_length": 1, "hash_ids": [9223372036854775808]}`,
			`field hash_ids: id 9223372036854775808 (index 0) at or above 2^63`},
		{`{"timestamp": "4", "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:2: field timestamp: "4" is a string: Mooncake's timestamps are integer milliseconds; ` +
				`a trace whose timestamps are strings of nanoseconds is LMBench's (format lmbench)`},
		{`{"timestamp": 1753780607550317897, "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:2: field timestamp: 1753780607550317897 out of range [0, 9223372036854]: Mooncake's timestamps are ` +
				`integer milliseconds; a trace whose timestamps are nanoseconds is LMBench's (format lmbench)`},
		{`{"timestamp": "4x", "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:15: field timestamp: "4x": want an integer count of nanoseconds below 2^63`},
		{`{"timestamp": 4.5, "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:15: field timestamp: cannot use JSON number 4.5 as int64`},
		{`{"timestamp": [4], "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:15: field timestamp: cannot use JSON array as int64`},
		{`{"timestamp": null, "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			`t.jsonl:3:2: field timestamp: missing`},
		{`{"timestamp": 4, "input_length": 10,`, `t.jsonl:3:`},
		{`{"timestamp": 4, "input_length": 10, "output_length": 1, "hash_ids": [1]} x`, `t.jsonl:3:`},
	}
	for _, tt := range tests {
		_, err := collectErr(NewMooncake(strings.NewReader(ok+"\n"+tt.line+"\n"), "t.jsonl", MooncakeOptions{}))
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) || pe.Line != 3 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("line %s: error %v, want a ParseError at line 3 (after a blank line) containing %q", tt.line, err, tt.want)
		}
	}
}

// collectErr reads r to its first error.
func collectErr(r Reader) ([]Record, error) {
	var out []Record
	for {
		rec, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

func BenchmarkMooncake(b *testing.B) {
	requireFile(b, mooncakeTrace)
	data, err := os.ReadFile(mooncakeTrace)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	records := 0
	for b.Loop() {
		m := NewMooncake(bytes.NewReader(data), mooncakeTrace, MooncakeOptions{})
		for {
			_, err := m.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			records++
		}
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
