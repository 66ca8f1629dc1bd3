package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/trace"
)

// genSummary is the schema of `kvtier trace gen -o FILE --json`.
type genSummary struct {
	Workload string `json:"workload"`
	File     string `json:"file"`
	Format   string `json:"format"`
	Records  int64  `json:"records"`
}

// statsJSON is the schema of `kvtier trace stats --json`.
type statsJSON struct {
	Trace string `json:"trace"`
	trace.Stats
}

// workloadJSON is the schema of one entry of `kvtier trace workloads --json`.
type workloadJSON struct {
	Name   string `json:"name"`
	Doc    string `json:"doc"`
	Params []struct {
		Name    string `json:"name"`
		Default int64  `json:"default"`
		Doc     string `json:"doc"`
	} `json:"params"`
}

// readAll reads every record of r.
func readAll(t *testing.T, r trace.Reader) []trace.Record {
	t.Helper()
	var out []trace.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		out = append(out, rec)
	}
}

// workloadRecords generates spec in-process: what `trace gen` must write.
func workloadRecords(t *testing.T, spec string) []trace.Record {
	t.Helper()
	r, err := trace.NewWorkloadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return readAll(t, r)
}

// fileRecords reads a trace file in format f.
func fileRecords(t *testing.T, path string, f trace.Format) []trace.Record {
	t.Helper()
	c, err := trace.OpenWith(path, trace.OpenOptions{Format: f})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return readAll(t, c)
}

// TestTraceGen checks that gen writes exactly the generator's records, to
// stdout or a file, in the format asked for, and that --seed overrides
// the spec's seed.
func TestTraceGen(t *testing.T) {
	const spec = "adversarial_burst:pages=40,steps=300,seed=3"
	want := workloadRecords(t, spec)
	if len(want) < 300 {
		t.Fatalf("generator made %d records for 300 steps", len(want))
	}

	code, out, errs := runCLI("trace", "gen", "--workload", spec)
	if code != ExitOK {
		t.Fatalf("gen to stdout: exit %d: %s", code, errs)
	}
	if got := readAll(t, trace.NewJSONL(strings.NewReader(out), "stdout")); !reflect.DeepEqual(got, want) {
		t.Errorf("gen to stdout: %d records differ from the generator's %d", len(got), len(want))
	}

	dir := t.TempDir()
	for _, tc := range []struct {
		file, format string // format: --format, or "" for the extension
		wantFormat   string
	}{
		{"a.csv", "", "csv"},
		{"a.jsonl", "", "jsonl"},
		{"a.trace", "", "jsonl"},
		{"b.csv", "jsonl", "jsonl"},
		{"b.jsonl", "csv", "csv"},
	} {
		t.Run(tc.file+"/"+tc.format, func(t *testing.T) {
			checkGenFile(t, spec, filepath.Join(dir, tc.file), tc.format, tc.wantFormat, want)
		})
	}

	t.Run("text summary", func(t *testing.T) {
		path := filepath.Join(dir, "s.jsonl")
		code, out, errs := runCLI("trace", "gen", "--workload", spec, "-o", path)
		wantOut := fmt.Sprintf("wrote %d records of %s to %s (jsonl)\n", len(want), spec, path)
		if code != ExitOK || out != wantOut {
			t.Errorf("exit %d, stdout %q, want %q; stderr %s", code, out, wantOut, errs)
		}
	})

	t.Run("--seed under the spec's seed=", func(t *testing.T) {
		code, out, errs := runCLI("trace", "gen", "--workload", spec, "--seed", "4")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		got := readAll(t, trace.NewJSONL(strings.NewReader(out), "stdout"))
		if !reflect.DeepEqual(got, want) {
			t.Error("--seed 4 overrode the spec's seed=3 (sim lets the spec's seed win)")
		}
	})
}

// checkGenFile runs trace gen of spec to path, in format (or the one the
// extension says when empty), and checks the JSON summary, that the file
// holds wantFormat by its content, and that it reads back as want.
func checkGenFile(t *testing.T, spec, path, format, wantFormat string, want []trace.Record) {
	t.Helper()
	args := []string{"trace", "gen", "--workload", spec, "-o", path, "--json"}
	if format != "" {
		args = append(args, "--format", format)
	}
	code, out, errs := runCLI(args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum genSummary
	decodeStrict(t, out, &sum, "workload", "file", "format", "records")
	wantSum := genSummary{Workload: spec, File: path, Format: wantFormat, Records: int64(len(want))}
	if sum != wantSum {
		t.Errorf("summary %+v, want %+v", sum, wantSum)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	detected, err := trace.Detect(f, "") // content only, not the name
	if err != nil || detected.String() != wantFormat {
		t.Errorf("%s holds %v (%v), want %s", filepath.Base(path), detected, err, wantFormat)
	}
	// Open takes a *.csv name for CSV, so read in the format written.
	if got := fileRecords(t, path, detected); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %d records differ from the generator's %d", filepath.Base(path), len(got), len(want))
	}
}

// TestTraceStats checks stats of files in each format and of a workload
// spec against trace.Summarize, in text and JSON.
func TestTraceStats(t *testing.T) {
	const spec = "multi_tenant:steps=500,seed=9"
	want, err := trace.Summarize(mustSpec(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	if want.Tenants < 2 || want.Reuses == 0 {
		t.Fatalf("workload %s is too plain to test stats: %+v", spec, want)
	}
	dir := t.TempDir()
	csvPath, jsonlPath := filepath.Join(dir, "t.csv"), filepath.Join(dir, "t.jsonl")
	for _, p := range []string{csvPath, jsonlPath} {
		if code, _, errs := runCLI("trace", "gen", "--workload", spec, "-o", p); code != ExitOK {
			t.Fatalf("gen %s: exit %d: %s", p, code, errs)
		}
	}

	for _, src := range [][]string{{csvPath}, {jsonlPath}, {"--workload", spec}, {"--format", "csv", csvPath}} {
		name := src[len(src)-1]
		t.Run(strings.Join(src[:len(src)-1], " ")+filepath.Base(name), func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"trace", "stats", "--json"}, src...)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got statsJSON
			decodeStrict(t, out, &got, "trace", "records", "accesses", "distinct_blocks", "bytes", "reuses",
				"reuse_ratio", "mean_reuse_distance", "reuse_distance_log2_histogram", "tenants", "sequences",
				"peak_live_blocks", "first_time", "last_time")
			if got.Trace != name || !reflect.DeepEqual(got.Stats, want) {
				t.Errorf("stats JSON\n got  %q %+v\nwant %q %+v", got.Trace, got.Stats, name, want)
			}
		})
	}

	code, out, errs := runCLI("trace", "stats", jsonlPath)
	if code != ExitOK {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	for _, line := range []string{
		"trace                     " + jsonlPath,
		fmt.Sprintf("records                   %d (%d accesses: %d reads, %d writes; %d updates, %d frees)",
			want.Records, want.Accesses, want.Reads, want.Writes, want.Updates, want.Frees),
		fmt.Sprintf("distinct blocks           %d (peak live %d)", want.Distinct, want.PeakLive),
		fmt.Sprintf("tenants / sequences       %d / %d", want.Tenants, want.Sequences),
		"  reuse distance 1-1 ",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("text stats lack %q:\n%s", line, out)
		}
	}
}

// TestTraceStatsMooncake summarises a small Mooncake file: prompt blocks
// shared between requests, decode blocks unless --no-decode, and block
// bytes from --kv-bytes-per-token.
func TestTraceStatsMooncake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	data := `{"timestamp": 0, "input_length": 1000, "output_length": 100, "hash_ids": [7, 8]}
{"timestamp": 5, "input_length": 600, "output_length": 1000, "hash_ids": [7, 9]}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args                        []string
		accesses, distinct, blockKB int64
	}{
		// Request 1: 2 prompt + 1 decode block (1100 tokens); request 2:
		// 2 prompt (7 again) + 2 decode (1600 tokens).
		{nil, 7, 6, 512 * trace.KVBytesLlama2_70B >> 10},
		{[]string{"--no-decode"}, 4, 3, 512 * trace.KVBytesLlama2_70B >> 10},
		{[]string{"--kv-bytes-per-token", "2"}, 7, 6, 1},
	} {
		t.Run(strings.Join(append([]string{"defaults"}, tc.args...), " "), func(t *testing.T) {
			args := append([]string{"trace", "stats", "--json", path}, tc.args...)
			code, out, errs := runCLI(args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got statsJSON
			decodeStrict(t, out, &got, "trace", "records", "distinct_blocks", "shared_accesses")
			if got.Accesses != tc.accesses || got.Distinct != tc.distinct || got.Bytes != tc.accesses*tc.blockKB<<10 ||
				got.Shared != 1 || got.Sequences != 2 {
				t.Errorf("stats %+v: want %d accesses of %d KiB blocks, %d distinct, 1 shared, 2 sequences",
					got.Stats, tc.accesses, tc.blockKB, tc.distinct)
			}
		})
	}
}

func mustSpec(t *testing.T, spec string) trace.Reader {
	t.Helper()
	r, err := trace.NewWorkloadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTraceWorkloads checks the listing against the registry.
func TestTraceWorkloads(t *testing.T) {
	infos := trace.Workloads()
	if len(infos) == 0 {
		t.Fatal("no workloads registered")
	}
	code, out, errs := runCLI("trace", "workloads", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []workloadJSON
	decodeStrict(t, out, &got, "name", "doc", "params.name", "params.default", "params.doc")
	if len(got) != len(infos) {
		t.Fatalf("%d workloads in JSON, %d registered", len(got), len(infos))
	}
	for i, in := range infos {
		g := got[i]
		if g.Name != in.Name || g.Doc != in.Doc || len(g.Params) != len(in.Params) {
			t.Errorf("workload %d: %+v, want %+v", i, g, in)
			continue
		}
		for j, p := range in.Params {
			if gp := g.Params[j]; gp.Name != p.Name || gp.Default != p.Default || gp.Doc != p.Doc {
				t.Errorf("%s param %d: %+v, want %+v", in.Name, j, gp, p)
			}
		}
	}

	code, out, errs = runCLI("trace", "workloads")
	if code != ExitOK {
		t.Fatalf("text: exit %d: %s", code, errs)
	}
	for _, in := range infos {
		if !strings.Contains(out, in.Name+"  ") || !strings.Contains(out, in.Doc) {
			t.Errorf("text listing lacks %s: %s", in.Name, in.Doc)
		}
		for _, p := range in.Params {
			if !strings.Contains(out, fmt.Sprintf("  %s=%d ", p.Name, p.Default)) {
				t.Errorf("text listing lacks %s's %s=%d", in.Name, p.Name, p.Default)
			}
		}
	}
}

// TestTraceUsageErrors checks that bad specs, flags and arguments exit 2
// with a message naming what is wrong, and write no file.
func TestTraceUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "never.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "gen"}, `required flag(s) "workload" not set`},
		{[]string{"trace", "gen", "--workload", "nope", "-o", out}, `--workload: unknown workload "nope"`},
		{[]string{"trace", "gen", "--workload", "periodic_reuse:pages=x", "-o", out}, "--workload: "},
		{[]string{"trace", "gen", "--workload", "periodic_reuse:colour=3", "-o", out}, "colour"},
		{[]string{"trace", "gen", "--workload", "periodic_reuse:pages=8", "-o", out}, "pages=8: want >= period (11)"},
		{[]string{"trace", "gen", "--workload", "periodic_reuse:burst=3", "-o", out}, "burst"},
		{[]string{"trace", "gen", "--workload", "periodic_reuse", "--json"}, "--json prints a summary and needs -o FILE"},
		{[]string{"trace", "gen", "--workload", "periodic_reuse", "--format", "mooncake", "-o", out}, `--format "mooncake": want jsonl or csv`},
		{[]string{"trace", "gen", "--workload", "periodic_reuse", "--format", "xml", "-o", out}, `--format "xml"`},
		{[]string{"trace", "gen", "--workload", "periodic_reuse", "--seed", "x"}, `invalid argument "x"`},
		{[]string{"trace", "gen", "extra", "--workload", "periodic_reuse"}, "unknown command"},
		{[]string{"trace", "stats"}, "give either a FILE or --workload SPEC"},
		{[]string{"trace", "stats", "f.jsonl", "--workload", "periodic_reuse"}, "give either a FILE or --workload SPEC"},
		{[]string{"trace", "stats", "a", "b"}, "accepts at most 1 arg(s)"},
		{[]string{"trace", "stats", "--workload", "nope"}, `--workload: unknown workload "nope"`},
		{[]string{"trace", "stats", "--workload", "chat_continuation:steps=-1"}, "steps"},
		{[]string{"trace", "stats", "--format", "xml", "f.jsonl"}, "--format: "},
		{[]string{"trace", "workloads", "extra"}, "unknown command"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed gen left %s behind: %v", out, err)
	}
}

// TestTraceMalformedFiles checks that a bad trace file exits 1 with an
// error naming file:line:col and the field.
func TestTraceMalformedFiles(t *testing.T) {
	dir := t.TempDir()
	const okJSONL = `{"op":"access","time":1,"block":2}` + "\n"
	const okMooncake = `{"timestamp": 3, "input_length": 10, "output_length": 1, "hash_ids": [1]}` + "\n"
	tests := []struct {
		file, data string
		want       string // after "DIR/file:"
	}{
		{"time.jsonl", okJSONL + `{"op":"access","time":0,"block":2}`, "2:16: field time: 0 goes back in time"},
		{"op.jsonl", okJSONL + `{"op":"grab","time":2,"block":2}`, `2:2: field op: unknown op "grab"`},
		{"key.jsonl", okJSONL + okJSONL + `{"op":"access","time":2,"block":2,"colour":1}`, "3:"},
		{"trunc.jsonl", okJSONL + `{"op":"access","time":2,`, "2:"},
		{"block.csv", "time,block,op\n1,2,access\n2,x,access\n", `3:3: field block: "x": invalid syntax`},
		{"cols.csv", "time,block,op,colour\n", "1:15: field colour: unknown column"},
		{"moon.jsonl", okMooncake + `{"timestamp": 1, "input_length": 10, "output_length": 1, "hash_ids": [1]}`,
			"2:2: field timestamp: 1 goes back in time"},
		{"ids.jsonl", okMooncake + `{"timestamp": 4, "input_length": 10, "output_length": 1, "hash_ids": [1, 2]}`,
			"2:58: field hash_ids: 2 ids, want ceil(input_length/512) = 1"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.file)
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI("trace", "stats", path)
		want := path + ":" + tt.want
		if code != ExitError || !strings.Contains(stderr, want) || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and %q", tt.file, code, stdout, stderr, want)
		}
	}
	missing := filepath.Join(dir, "missing.jsonl")
	if code, _, stderr := runCLI("trace", "stats", missing); code != ExitError || !strings.Contains(stderr, missing) {
		t.Errorf("missing file: exit %d, stderr %q; want exit 1 naming %s", code, stderr, missing)
	}
}
