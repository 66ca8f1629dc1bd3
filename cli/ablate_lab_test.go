package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAblateLab(t *testing.T) {
	figs := filepath.Join("..", "policy", "sim", "lab", "testdata", "regret_ablation.csv")
	sweep := filepath.Join("..", "policy", "sim", "lab", "testdata", "default_sweep.csv")
	wrong := filepath.Join(t.TempDir(), "wrong.csv")
	raw, err := os.ReadFile(figs)
	if err != nil {
		t.Fatal(err)
	}
	// One published figure changed: the check must report it and fail.
	bad := strings.Replace(string(raw), "7,medium,chat_continuation,lru,512,19,", "7,medium,chat_continuation,lru,512,20,", 1)
	if err := os.WriteFile(wrong, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"reproduces", []string{"--check", figs}, ExitOK, "198 of 198 published runs reproduced"},
		{"mismatch", []string{"--check", wrong}, ExitError, "miss_count 19, lab 20"},
		{"artifacts", []string{"-o", out}, ExitOK, "198 runs"},
		{"json", []string{"--check", figs, "--json"}, ExitOK, `"matched":198`},
		{"nothing to do", nil, ExitUsage, "needs --output-dir, --plots, --check or --decompose"},
		{"decompose", []string{"--decompose"}, ExitOK, "| medium | adversarial_burst | lru | 2.478 ms, 0.0% |"},
		{"bad figures", []string{"--check", "ablate_lab.go"}, ExitUsage, "bad figures file"},
		{"another grid's figures", []string{"--check", sweep}, ExitUsage,
			"210 of its 210 runs are not among the 198 this grid ran (the first: seed 7, scenario small_fp16_prefetch"},
		{"sweep", []string{"--check", sweep, "--preset", "lab-sweep"}, ExitOK, "210 of 210 published runs reproduced"},
		{"sweep without check", []string{"--preset", "lab-sweep", "-o", out}, ExitUsage, "for --check FILE"},
		{"unknown preset", []string{"--preset", "nosuch", "-o", out}, ExitUsage, "want regret, baselines, quant, lab or lab-sweep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"ablate", "--preset", "lab"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
				t.Errorf("exit %d, want %d; output %q %q, want %q", code, tc.code, stdout, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); err != nil {
		t.Errorf("no summary.csv: %v", err)
	}
	if code, _, stderr := runCLI("ablate", "--preset", "regret", "--check", figs); code != ExitUsage {
		t.Errorf("--check without --preset lab: exit %d (%s), want usage", code, stderr)
	}
}

// TestAblateLabGrid runs a grid file in the lab model: the lab's missing
// workloads, a lab policy and kvtier policies.
func TestAblateLabGrid(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.json")
	bad := filepath.Join(dir, "bad.json")
	pf := filepath.Join(dir, "pf.json")
	for p, body := range map[string]string{
		grid: `{"name": "more", "mode": "lab", "policies": [{"name": "lru"}, {"name": "kvtier:s3fifo"}],
			"scenarios": ["constrained"], "workloads": ["long_tail_mix", "adversarial_prefetch:steps=64"], "seeds": [7]}`,
		pf: `{"name": "pf", "mode": "lab", "policies": [{"name": "lru"}, {"name": "predictive"}],
			"scenarios": ["constrained"], "workloads": ["periodic_reuse"], "seeds": [7]}`,
		bad: `{"name": "bad", "mode": "lab", "policies": [{"name": "kvtier:nope"}],
			"scenarios": ["constrained"], "workloads": ["long_tail_mix"], "seeds": [7]}`,
	} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"artifacts", []string{"--config", grid, "-o", filepath.Join(dir, "out")}, ExitOK, "grid more: 4 runs"},
		{"decompose", []string{"--config", grid, "--decompose"}, ExitOK, "| constrained | adversarial_prefetch | kvtier:s3fifo |"},
		{"bad policy", []string{"--config", bad, "-o", dir}, ExitUsage, "unknown policy"},
		// constrained periodic_reuse at seed 7: predictive prefetches 302
		// pages, 301 read while in tier 0 (lab_results.csv has the rows).
		{"prefetch", []string{"--config", pf, "--prefetch", "2", "-o", filepath.Join(dir, "pf")}, ExitOK,
			"prefetch depth 2: 302 issued, 301 useful, 1 wasted (usefulness 0.997)"},
		{"prefetch json", []string{"--config", pf, "--prefetch", "1", "--plots", filepath.Join(dir, "pfp"), "--json"}, ExitOK,
			`"prefetch_requests":302`},
		{"prefetch off", []string{"--config", pf, "-o", filepath.Join(dir, "pf0"), "--json"}, ExitOK, `"prefetch_depth":0`},
		{"negative prefetch", []string{"--config", pf, "--prefetch", "-1", "-o", dir}, ExitUsage, "want a depth >= 0"},
		{"prefetch decompose", []string{"--config", pf, "--prefetch", "1", "--decompose"}, ExitUsage, "drop --prefetch"},
		{"prefetch not lab", []string{"--preset", "regret", "--prefetch", "1", "-o", dir}, ExitUsage, "--move-log need --preset lab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"ablate"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
				t.Errorf("exit %d, want %d; output %q %q, want %q", code, tc.code, stdout, stderr, tc.want)
			}
		})
	}
	raw, err := os.ReadFile(filepath.Join(dir, "pf", "lab_results.csv"))
	if err != nil || !strings.Contains(string(raw), ",predictive,fp16,2,320,19,316,") {
		t.Errorf("lab_results.csv: %v\n%s", err, raw)
	}
}

// TestAblateLabMoveLog checks that ablate writes the lab runs' moves when
// asked, and refuses --move-log where no lab run happens.
func TestAblateLabMoveLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "moves.jsonl")
	code, _, stderr := runCLI("ablate", "--preset", "lab", "-o", filepath.Join(dir, "out"), "--move-log", log)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	want := `{"policy":"lru","trace":"chat_continuation/medium/fp16/seed=7","step":0,`
	if !strings.HasPrefix(first, want) || strings.Count(string(b), "\n") < 198 {
		t.Errorf("move log starts %q, want %q and a line per move of 198 runs", first, want)
	}
	// A usage error leaves an existing file as it was.
	if err := os.WriteFile(log, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string // in the usage error
	}{
		{[]string{"--preset", "regret", "-o", dir, "--move-log", log}, "--move-log need --preset lab"},
		{[]string{"--preset", "lab", "--decompose", "--move-log", log}, "--decompose runs none"},
		{[]string{"--preset", "lab", "--move-log", log}, "needs --output-dir"},
		{[]string{"--preset", "lab-sweep", "--check", "x.csv", "--move-log", log}, "--move-log"},
	} {
		if code, _, stderr := runCLI(append([]string{"ablate"}, tt.args...)...); code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d (%s), want a usage error with %q", tt.args, code, stderr, tt.want)
		}
	}
	if b, err := os.ReadFile(log); err != nil || string(b) != "precious\n" {
		t.Errorf("a refused command changed the file: %q, %v", b, err)
	}
	// A log that cannot be written in full fails the command.
	if _, err := os.Stat("/dev/full"); err == nil {
		code, _, stderr := runCLI("ablate", "--preset", "lab", "-o", filepath.Join(dir, "out2"), "--move-log", "/dev/full")
		if code != ExitError || !strings.Contains(stderr, "--move-log /dev/full") {
			t.Errorf("--move-log /dev/full: exit %d (%s), want %d and the log's error", code, stderr, ExitError)
		}
	}
}
