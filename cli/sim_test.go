package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// recordedTrace writes a kvtier JSONL trace like one the daemon records:
// 48 blocks of 2 MiB, 3,000 accesses, two thirds of them to a hot set of
// 7 blocks.
func recordedTrace(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := trace.NewJSONLWriter(f)
	for i := range 3000 {
		block := uint64(i*13) % 48
		if i%3 != 0 {
			block = uint64(i % 7)
		}
		rec := trace.Record{Op: trace.OpAccess, Time: int64(i), Block: block,
			Meta: policy.Meta{Size: 2 << 20, RefCount: 1, Priority: policy.PriorityNormal}}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// simJSON runs kvtier sim --json with args and decodes its results.
func simJSON(t *testing.T, args ...string) []sim.Result {
	t.Helper()
	code, out, errs := runCLI(append([]string{"sim", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("sim %v: exit %d: %s", args, code, errs)
	}
	var rs []sim.Result
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("sim %v: %v\n%s", args, err, out)
	}
	return rs
}

// With the defaults (kvlab medium: tier 0 holds 42,666 bytes) no 2 MiB
// block fits the fast tier: the command says so and exits 2 instead of
// printing hit ratios of 0.
func TestSimBlockTooLarge(t *testing.T) {
	path := recordedTrace(t)
	for _, mode := range []string{"cache", "tiering"} {
		t.Run(mode, func(t *testing.T) {
			code, out, errs := runCLI("sim", "--trace", path, "--mode", mode, "--policy", "lru")
			if code != ExitUsage || out != "" {
				t.Fatalf("exit %d, stdout %q, want %d and nothing", code, out, ExitUsage)
			}
			for _, want := range []string{path, "2MiB (2097152 bytes in fp16)", "tier0 of preset kvlab, scenario medium",
				"holds 42666 bytes", "--fast-bytes SIZE (at least 2MiB)", "--capacity-blocks N"} {
				if !strings.Contains(errs, want) {
					t.Errorf("message %q lacks %q", errs, want)
				}
			}
		})
	}
	// int4 makes the block 512 KiB: still too large.
	code, _, errs := runCLI("sim", "--trace", path, "--quant", "int4", "--fast-bytes", "256KiB")
	if code != ExitUsage || !strings.Contains(errs, "512KiB (524288 bytes in int4)") ||
		!strings.Contains(errs, "scenario medium,fast=256KiB") {
		t.Errorf("int4: exit %d: %s", code, errs)
	}
}

// --fast-bytes 32 MiB holds 16 of the trace's blocks, so the hot set fits
// and every policy hits in the fast tier, in both modes; blocks mode
// needs no override.
func TestSimFastBytes(t *testing.T) {
	path := recordedTrace(t)
	tests := []struct {
		name string
		args []string
	}{
		{"cache", []string{"--fast-bytes", "32MiB"}},
		{"tiering", []string{"--mode", "tiering", "--fast-bytes", "32MiB", "--epoch", "32"}},
		{"blocks", []string{"--capacity-blocks", "16"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := simJSON(t, append([]string{"--trace", path, "--policy", "lru,arc"}, tt.args...)...)
			if len(rs) == 0 {
				t.Fatal("no results")
			}
			for _, r := range rs {
				if r.FastHitRatio < 0.5 || r.Accesses != 3000 {
					t.Errorf("%s: fast hit ratio %.3f over %d accesses, want >= 0.5 over 3000",
						r.Policy, r.FastHitRatio, r.Accesses)
				}
				if tt.name != "blocks" && r.Scenario != "medium,fast=32MiB" {
					t.Errorf("%s: scenario %q, want medium,fast=32MiB", r.Policy, r.Scenario)
				}
			}
		})
	}
}

// --slow-bytes sizes tier 1: with room for every block there, the cache
// mode serves more accesses from it than with room for two.
func TestSimSlowBytes(t *testing.T) {
	path := recordedTrace(t)
	tier1 := func(slow string) int64 {
		rs := simJSON(t, "--trace", path, "--policy", "lru", "--fast-bytes", "16MiB", "--slow-bytes", slow)
		for _, r := range rs {
			if r.Policy == "lru" {
				if want := "medium,fast=16MiB,slow=" + slow; r.Scenario != want {
					t.Errorf("scenario %q, want %q", r.Scenario, want)
				}
				return r.Hits[1]
			}
		}
		t.Fatal("no lru result")
		return 0
	}
	small, large := tier1("4MiB"), tier1("128MiB")
	if large <= small {
		t.Errorf("tier 1 hits: %d with 128 MiB, %d with 4 MiB: want more with more room", large, small)
	}
}

func TestSimCapacityFlagErrors(t *testing.T) {
	path := recordedTrace(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--fast-bytes", "lots"}, `--fast-bytes: size "lots"`},
		{[]string{"--fast-bytes", "0"}, "--fast-bytes 0: want a capacity > 0"},
		{[]string{"--slow-bytes", "-1MiB"}, "--slow-bytes: size \"-1MiB\" is negative"},
		{[]string{"--capacity-blocks", "8", "--fast-bytes", "1GiB"}, "drop --fast-bytes or --capacity-blocks"},
		{[]string{"--capacity-blocks", "-5"}, "--capacity-blocks -5: want a number of blocks > 0"},
		{[]string{"--prefetch", "-1"}, "prefetch = -1: want >= 0"},
		{[]string{"--capacity-blocks", "8", "--prefetch", "2"}, "prefetch = 2: cache mode only (this run is in blocks mode)"},
		{[]string{"--mode", "tiering", "--prefetch", "2"}, "prefetch = 2: cache mode only (this run is in tiering mode)"},
		{[]string{"--epoch", "32"}, "--epoch: tiering mode only (this run is in cache mode; give --mode tiering)"},
		{[]string{"--capacity-blocks", "8", "--headroom", "0.1"}, "--headroom: tiering mode only (this run is in blocks mode"},
		{[]string{"--no-decode"}, "no-decode applies only to Mooncake and LMBench traces"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(append([]string{"sim", "--trace", path}, tt.args...)...)
			if code != ExitUsage || out != "" || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q: want %d and %q", code, out, errs, ExitUsage, tt.want)
			}
		})
	}
}

// --reference picks the reference rows; LRU asked as a policy is one row.
func TestSimReference(t *testing.T) {
	path := recordedTrace(t)
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--policy", "arc"}, []string{"arc", sim.RefLRU, sim.RefBelady}},
		{[]string{"--policy", "lru"}, []string{"lru", sim.RefBelady}},
		{[]string{"--policy", "lru", "--reference", "none"}, []string{"lru"}},
		{[]string{"--policy", "arc,s3fifo", "--reference", "lru"}, []string{"arc", "s3fifo", sim.RefLRU}},
		{[]string{"--reference", "belady"}, []string{sim.RefBelady}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			rs := simJSON(t, append([]string{"--trace", path, "--capacity-blocks", "10"}, tt.args...)...)
			var got []string
			for _, r := range rs {
				got = append(got, r.Policy)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []struct{ ref, want string }{{"opt", `--reference: `}, {"none", "nothing to run"}} {
		code, _, errs := runCLI("sim", "--trace", path, "--capacity-blocks", "10", "--reference", bad.ref)
		if code != ExitUsage || !strings.Contains(errs, bad.want) {
			t.Errorf("--reference %s: exit %d, stderr %q: want %d and %q", bad.ref, code, errs, ExitUsage, bad.want)
		}
	}
}

// TestSimTableDecimals checks that every column of sim's table has a fixed
// number of decimals, whatever the values (issue 15: %.4g printed 0.218
// next to 0.2214 and 10.22 next to 1.302).
func TestSimTableDecimals(t *testing.T) {
	hr := 0.095
	var rs []sim.Result
	for i, v := range []struct {
		mean, p99 float64
		bytes     int64
	}{{0.218, 1.302, 1_030_000}, {0.2214, 10.22, 976_000}, {2.5, 10, 6_800_000}, {0.2145, 1.302, 44_500_000_000_000}} {
		rs = append(rs, sim.Result{Policy: "p" + string(rune('a'+i)), Workload: "w", Mode: "cache", Quant: "fp16",
			Accesses: 512, FastHitRatio: 0.8, MeanLatencyMs: v.mean, P99LatencyMs: v.p99,
			BytesDemand: v.bytes, Evictions: 95, RepromotionRate: 0.2, Headroom: &hr})
	}
	var b strings.Builder
	if err := printResults(&b, rs); err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^ *p[a-d] +512 +\d+\.\d{3} +\d+\.\d{3} +\d+\.\d{3} +\d+\.\d{2} [KMGT]iB +95 +\d+\.\d{3} +-?\d+\.\d%$`)
	n := 0
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n")[2:] {
		n++
		if !row.MatchString(line) {
			t.Errorf("row %q: decimals not fixed per column", line)
		}
	}
	if n != len(rs) {
		t.Errorf("%d rows, want %d:\n%s", n, len(rs), b.String())
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.00 KiB", 976_000: "953.12 KiB", 1_048_570: "1023.99 KiB",
		1_048_571: "1.00 MiB", 6_800_000: "6.48 MiB", 7 << 30: "7.00 GiB", 44_500_000_000_000: "40.47 TiB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
