package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kvtier/kvtier/policy/sim"
)

// mooncakeText has 4 prompt and 3 decode block accesses (TestTraceStatsMooncake).
const mooncakeText = `{"timestamp": 0, "input_length": 1000, "output_length": 100, "hash_ids": [7, 8]}
{"timestamp": 5, "input_length": 600, "output_length": 1000, "hash_ids": [7, 9]}
`

// lmbenchText is an LMBench trace-replayer trace, newest request first,
// with 6 prompt and 2 decode block accesses: request "2" reads 7 and 8 and
// its 1100 tokens need 2 decode blocks beyond the prompt's one; request
// "5" reads 7, 8, 9, 10 for 600 tokens and adds no block.
const lmbenchText = `{"timestamp": "5000000", "input_length": 600, "output_length": 10, "hash_ids": [7, 8, 9, 10]}
{"timestamp": "2000000", "input_length": 100, "output_length": 1000, "hash_ids": [7, 8]}
`

// compressed writes text to dir/name plain, gzip (name.gz) and zstd
// (name.zst) and returns the three paths.
func compressed(t *testing.T, dir, name, text string) []string {
	t.Helper()
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	zw, err := zstd.NewWriter(&zs)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []interface {
		Write([]byte) (int, error)
		Close() error
	}{gw, zw} {
		if _, err := w.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{name, []byte(text)}, {name + ".gz", gz.Bytes()}, {name + ".zst", zs.Bytes()}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestSimTraceInput replays Mooncake and LMBench traces, plain and
// compressed, with and without --no-decode: the accesses are those of
// trace stats, and compression changes nothing but the name.
func TestSimTraceInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text             string
		withDecode, promptOnly int64
		format                 string
	}{
		{"m.jsonl", mooncakeText, 7, 4, "mooncake"},
		{"l.jsonl", lmbenchText, 8, 6, "lmbench"},
	} {
		var first []sim.Result
		for _, path := range compressed(t, dir, tc.name, tc.text) {
			for _, noDecode := range []bool{false, true} {
				args := []string{"--trace", path, "--capacity-blocks", "3", "--policy", "lru", "--reference", "none"}
				want := tc.withDecode
				if noDecode {
					args, want = append(args, "--no-decode"), tc.promptOnly
				}
				rs := simJSON(t, args...)
				if len(rs) != 1 || rs[0].Accesses != want {
					t.Fatalf("sim %v: %+v, want one result of %d accesses", args, rs, want)
				}
				if stats := statsAccesses(t, path, noDecode); stats != want {
					t.Errorf("trace stats %s (no-decode %v): %d accesses, want %d", path, noDecode, stats, want)
				}
				// the same with --format given
				if again := simJSON(t, append(args, "--format", tc.format)...); !reflect.DeepEqual(again, rs) {
					t.Errorf("sim %v --format %s: %+v, want %+v", args, tc.format, again, rs)
				}
				rs[0].Workload = ""
				if len(first) < 2 {
					first = append(first, rs[0])
				} else if !reflect.DeepEqual(rs[0], first[btoi(noDecode)]) {
					t.Errorf("sim %v: %+v, want what the plain file gave: %+v", args, rs[0], first[btoi(noDecode)])
				}
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// statsAccesses runs trace stats --json on path.
func statsAccesses(t *testing.T, path string, noDecode bool) int64 {
	t.Helper()
	args := []string{"trace", "stats", "--json", path}
	if noDecode {
		args = append(args, "--no-decode")
	}
	code, out, errs := runCLI(args...)
	if code != ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	var got statsJSON
	decodeStrict(t, out, &got, "trace", "accesses")
	return got.Accesses
}

// TestTraceInputErrors checks that errors in compressed files name the
// file, line and column of the text, that a Mooncake reading of an LMBench
// file says which format it is, and that the new flags are checked.
func TestTraceInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := mooncakeText + `{"timestamp": 6, "input_length": 600, "output_length": 1, "hash_ids": [7, -9]}` + "\n"
	for _, path := range compressed(t, dir, "bad.jsonl", bad)[1:] {
		for _, args := range [][]string{{"sim", "--trace", path, "--capacity-blocks", "3"}, {"trace", "stats", path}} {
			code, _, errs := runCLI(args...)
			if code != ExitError || !strings.Contains(errs, path+":3:") {
				t.Errorf("%v: exit %d, stderr %q; want %d naming %s:3:", args, code, errs, ExitError, path)
			}
		}
	}
	lmb := compressed(t, dir, "l.jsonl", lmbenchText)[2]
	code, _, errs := runCLI("sim", "--trace", lmb, "--format", "mooncake", "--capacity-blocks", "3")
	if code != ExitError || !strings.Contains(errs, lmb+":1:2: field timestamp: \"5000000\" is a string") ||
		!strings.Contains(errs, "LMBench's (format lmbench)") {
		t.Errorf("sim --format mooncake on LMBench: exit %d, stderr %q", code, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--workload", "periodic_reuse", "--no-decode"}, "--format and --no-decode apply to --trace files"},
		{[]string{"sim", "--workload", "periodic_reuse", "--format", "csv"}, "--format and --no-decode apply to --trace files"},
		{[]string{"sim", "--trace", lmb, "--format", "xml"}, `--format: unknown trace format "xml" (want jsonl, mooncake, lmbench or csv)`},
		{[]string{"trace", "gen", "--workload", "periodic_reuse", "--format", "lmbench", "-o", filepath.Join(dir, "o")},
			`--format "lmbench": want jsonl or csv`},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, ExitUsage, tc.want)
		}
	}
}
