package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/policy/sim"
)

// TestAblatePlots: --plots writes the lab's four plot kinds for both
// presets, alone or with --output-dir.
func TestAblatePlots(t *testing.T) {
	kinds := []string{sim.FileLatencyVsHorizon, sim.FileHitRateVsWeight, sim.FileLatencyVsBytes, sim.FileFailureCase}
	tests := []struct {
		name      string
		args      []string
		artifacts bool
		belady    string // the Bélády line's legend in hit_rate_vs_weight.svg
	}{
		{"regret", []string{"--preset", "regret"}, false, "Bélády (offline optimum)"},
		{"regret with artifacts", []string{"--preset", "regret", "-o", "OUT"}, true, "Bélády (offline optimum)"},
		{"lab", []string{"--preset", "lab"}, false, "Bélády (tier 0: furthest next use; no prefetch)"},
		{"lab with artifacts", []string{"--preset", "lab", "-o", "OUT"}, true, "Bélády (tier 0: furthest next use; no prefetch)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, plots := t.TempDir(), t.TempDir()
			args := []string{"ablate", "--plots", plots}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "OUT", dir))
			}
			code, stdout, stderr := runCLI(args...)
			if code != ExitOK || !strings.Contains(stdout, "198 runs") {
				t.Fatalf("exit %d: %q %q", code, stdout, stderr)
			}
			for _, k := range kinds {
				b, err := os.ReadFile(filepath.Join(plots, k))
				if err != nil || !strings.Contains(string(b), `class="xlabel"`) {
					t.Errorf("%s: %v, or no axis label", k, err)
				}
			}
			hit, _ := os.ReadFile(filepath.Join(plots, sim.FileHitRateVsWeight))
			if n := strings.Count(string(hit), `class="belady"`); n != 6 || !strings.Contains(string(hit), tc.belady) {
				t.Errorf("hit_rate_vs_weight.svg: %d Bélády lines (want one in each of 6 panels), legend %q there: %v",
					n, tc.belady, strings.Contains(string(hit), tc.belady))
			}
			_, err := os.Stat(filepath.Join(dir, sim.FileSummary))
			if (err == nil) != tc.artifacts {
				t.Errorf("summary.csv there: %v, want %v", err == nil, tc.artifacts)
			}
		})
	}
	if code, _, stderr := runCLI("ablate", "--preset", "regret"); code != ExitUsage || !strings.Contains(stderr, "--plots") {
		t.Errorf("no output: exit %d (%s), want usage naming --plots", code, stderr)
	}
}
