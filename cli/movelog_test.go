package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// TestSimMoveLog: sim --move-log writes a line per move, CSV or JSON
// lines by the file's name, gzip- or zstd-compressed by its last extension, whose evictions are the printed ones, and
// refuses tiering mode.
func TestSimMoveLog(t *testing.T) {
	tests := []struct {
		name, file string
		args       []string
	}{
		{"csv cache", "m.csv", nil},
		{"jsonl cache", "m.jsonl", nil},
		{"csv blocks", "m.csv", []string{"--capacity-blocks", "20"}},
		{"csv gzip", "m.csv.gz", nil},
		{"jsonl zstd", "m.jsonl.zst", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			args := append([]string{"sim", "--workload", "adversarial_burst", "--policy", "lru,arc",
				"--reference", "none", "--json", "--move-log", path}, tc.args...)
			code, stdout, stderr := runCLI(args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var rs []sim.Result
			if err := json.Unmarshal([]byte(stdout), &rs); err != nil {
				t.Fatal(err)
			}
			b := readMoveLog(t, path)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			evicts := map[string]int64{}
			for _, l := range lines {
				if strings.HasSuffix(l, ",evict") || strings.HasSuffix(l, `"reason":"evict"}`) {
					evicts[strings.Trim(strings.SplitN(strings.TrimPrefix(l, `{"policy":`), ",", 2)[0], `"`)]++
				}
			}
			for _, r := range rs {
				if evicts[r.Policy] != r.Evictions || r.Evictions == 0 {
					t.Errorf("%s: %d evictions logged, %d counted", r.Policy, evicts[r.Policy], r.Evictions)
				}
			}
		})
	}
	code, _, stderr := runCLI("sim", "--workload", "adversarial_burst", "--mode", "tiering", "--move-log", filepath.Join(t.TempDir(), "x"))
	if code != ExitUsage || !strings.Contains(stderr, "--move-log") {
		t.Errorf("tiering: exit %d (%s), want usage", code, stderr)
	}
}

// readMoveLog reads a move log, decompressed (a .gz or .zst file must be
// compressed: plain text under such a name is an error).
func readMoveLog(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, c, err := trace.Decompress(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if want := map[string]trace.Compression{".gz": trace.CompressionGzip, ".zst": trace.CompressionZstd}[filepath.Ext(path)]; c != want {
		t.Fatalf("%s: compression %v, want %v", path, c, want)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
