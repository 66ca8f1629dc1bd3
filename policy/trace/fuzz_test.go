package trace

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// fuzzLimit bounds the records read from one input (a Mooncake line may
// ask for millions of decode blocks).
const fuzzLimit = 10000

// readFuzz reads up to fuzzLimit records, checking that an error other
// than io.EOF is a ParseError at a line of the input.
func readFuzz(t *testing.T, r Reader, input string) []Record {
	var out []Record
	for len(out) < fuzzLimit {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v (%T) is not a ParseError", err, err)
			}
			if pe.Line < 1 || pe.Line > strings.Count(input, "\n")+1 || pe.File != "fuzz" {
				t.Fatalf("error %v: line %d outside the input's %d lines", err, pe.Line, strings.Count(input, "\n")+1)
			}
			break
		}
		out = append(out, rec)
	}
	return out
}

// roundTrip writes recs with w and reads them back with read.
func roundTrip(t *testing.T, recs []Record, w Writer, buf *bytes.Buffer, read func(io.Reader) Reader) {
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("writing %+v read from the input: %v", r, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got := collect(t, read(buf))
	if len(recs) > 0 && !reflect.DeepEqual(got, recs) {
		t.Fatalf("round trip changed the records:\n got %+v\nwant %+v", got, recs)
	}
}

func FuzzMooncake(f *testing.F) {
	f.Add(`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}
{"timestamp": 0, "input_length": 1000, "output_length": 3, "hash_ids": [0, 14]}`)
	f.Add(`{"timestamp": 5, "input_length": 0, "output_length": 0, "hash_ids": []}` + "\n\n" + `{"timestamp": 4}`)
	f.Add(`{"timestamp": 1e3, "input_length": 10, "output_length": 1, "hash_ids": [1], "x": [}`)
	f.Add(`{"hash_ids":[0,18446744073709551615],"timestamp":01,"input_length":1.5e3,"output_length":0}`)
	f.Add(`{"timestamp": "1753780607550317897", "input_length": 2101, "output_length": 84, "hash_ids": [2843241808, 137021281]}
{"timestamp": "0", "input_length": 9, "output_length": 1, "hash_ids": []}` + "\n" + `{"timestamp": " 1", "input_length": 0}`)
	f.Fuzz(func(t *testing.T, in string) {
		// the fast parser agrees with encoding/json wherever it accepts a line
		ref := NewMooncake(strings.NewReader(""), "fuzz", MooncakeOptions{})
		for _, line := range strings.Split(in, "\n") {
			var fast mooncakeReq
			if !parseMooncakeFast([]byte(line), &fast) {
				continue
			}
			if err := ref.parseJSON([]byte(line)); err != nil {
				t.Fatalf("fast parser accepted %q, encoding/json says %v", line, err)
			}
			slow := ref.req
			if len(fast.ids) == 0 && len(slow.ids) == 0 {
				fast.ids, slow.ids = nil, nil
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q: fast parser %+v, encoding/json %+v", line, fast, slow)
			}
		}
		// Mooncake and LMBench (which sorts) records never go back in time
		for _, opt := range []MooncakeOptions{{FreeDecode: true}, {NoDecode: true, Time: TimeStamp, BlockTokens: 16}} {
			for format, r := range map[string]Reader{"mooncake": NewMooncake(strings.NewReader(in), "fuzz", opt),
				"lmbench": NewLMBench(strings.NewReader(in), "fuzz", opt)} {
				recs := readFuzz(t, r, in)
				for i := 1; i < len(recs); i++ {
					if recs[i].Time < recs[i-1].Time {
						t.Fatalf("%s record %d: time %d after %d", format, i, recs[i].Time, recs[i-1].Time)
					}
				}
			}
		}
	})
}

func FuzzJSONL(f *testing.F) {
	var buf bytes.Buffer
	if _, err := Copy(NewJSONLWriter(&buf), &sliceReader{recs: sampleRecords()}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add(`{"op":"access","time":1,"block":2,"class":"none","lifetime":1e308}` + "\n" + `{"op":"free","time":0,"block":2}`)
	f.Add(`{"op":"update","time":1,"block":2,"pinned":true} {"x":1}`)
	f.Add(`{"op":"access","time":-0,"block":1,"lifetime":-0.5e-3,"tenant":4294967296,"class":""}`)
	f.Add(`{"op":"free","time":-9223372036854775808,"block":18446744073709551615,"pos":-2147483648,"write":false}`)
	f.Fuzz(func(t *testing.T, in string) {
		// the fast parser agrees with encoding/json wherever it accepts a line
		ref := NewJSONL(strings.NewReader(""), "fuzz")
		for _, line := range strings.Split(in, "\n") {
			fast, ok := parseJSONLFast([]byte(line))
			if !ok {
				continue
			}
			slow, err := ref.decode([]byte(line))
			if err != nil {
				t.Fatalf("fast parser accepted %q, encoding/json says %v", line, err)
			}
			if fast != slow {
				t.Fatalf("%q: fast parser %+v, encoding/json %+v", line, fast, slow)
			}
		}
		recs := readFuzz(t, NewJSONL(strings.NewReader(in), "fuzz"), in)
		var out bytes.Buffer
		roundTrip(t, recs, NewJSONLWriter(&out), &out, func(r io.Reader) Reader { return NewJSONL(r, "out") })
	})
}

func FuzzCSV(f *testing.F) {
	var buf bytes.Buffer
	if _, err := Copy(NewCSVWriter(&buf), &sliceReader{recs: sampleRecords()}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add("block,op,time,size\n1,access,0,4096\n2,free,0,\n")
	f.Add("time,block,op\n\"1\",2,access\r\n3,4\n")
	f.Fuzz(func(t *testing.T, in string) {
		recs := readFuzz(t, NewCSV(strings.NewReader(in), "fuzz"), in)
		var out bytes.Buffer
		roundTrip(t, recs, NewCSVWriter(&out), &out, func(r io.Reader) Reader { return NewCSV(r, "out") })
	})
}

// FuzzParseWorkload checks that a spec ParseWorkload accepts prints (String)
// as a spec that parses to the same thing, and that resolving its
// parameters against the registry returns rather than panics.
func FuzzParseWorkload(f *testing.F) {
	f.Add("periodic_reuse:pages=96,steps=640,period=11,seed=42")
	f.Add(" adversarial_burst : burst = 14 , gap_min=-3")
	f.Add("multi_tenant:tenants=9223372036854775807,seed=-9223372036854775808")
	f.Add("x:pages=1,pages=2")
	f.Add("long_context:sinks=4,window=,colour=1")
	f.Fuzz(func(t *testing.T, spec string) {
		ws, err := ParseWorkload(spec)
		if err != nil {
			if !errors.Is(err, ErrBadParam) {
				t.Fatalf("ParseWorkload(%q) = %v, want ErrBadParam", spec, err)
			}
			return
		}
		again, err := ParseWorkload(ws.String())
		if err != nil || again != ws {
			t.Fatalf("%q parsed to %+v, printed as %q, which parses to %+v, %v", spec, ws, ws.String(), again, err)
		}
		if info, err := LookupWorkload(ws.Name); err == nil {
			_, _ = info.Resolve(ws.Params)
		}
	})
}
