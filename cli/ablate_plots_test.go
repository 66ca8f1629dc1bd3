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
	}{
		{"regret", []string{"--preset", "regret"}, false},
		{"regret with artifacts", []string{"--preset", "regret", "-o", "OUT"}, true},
		{"lab", []string{"--preset", "lab"}, false},
		{"lab with artifacts", []string{"--preset", "lab", "-o", "OUT"}, true},
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
