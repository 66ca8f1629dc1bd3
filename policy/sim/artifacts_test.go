package sim

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

// TestCSVUnmeasuredFields checks that the summary and aggregate CSVs leave
// the figures the lab model does not measure empty, and write them for
// kvtier's modes.
func TestCSVUnmeasuredFields(t *testing.T) {
	tests := []struct {
		mode      string
		wantEmpty bool
	}{
		{"cache", false},
		{ModeLab, true},
	}
	cols := []string{"p99_latency_ms", "repromotion_rate", "fast_utilisation", "p99_latency_ms_mean", "repromotion_rate_std"}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			r := Result{Policy: "lru", Workload: "w", Mode: tt.mode, Scenario: "s", Quant: "fp16", Seed: 1,
				Accesses: 10, MeanLatencyMs: 1.5, P99LatencyMs: 2.5, RepromotionRate: 0.25, Utilisation: 0.5}
			for _, data := range [][]byte{summaryCSV([]Result{r}), aggregateCSV(AggregateResults([]Result{r}))} {
				rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
				if err != nil || len(rows) != 2 {
					t.Fatalf("%d rows, %v", len(rows), err)
				}
				for i, name := range rows[0] {
					if !slices.Contains(cols, name) {
						continue
					}
					if empty := rows[1][i] == ""; empty != tt.wantEmpty {
						t.Errorf("mode %s: %s = %q, want empty: %v", tt.mode, name, rows[1][i], tt.wantEmpty)
					}
				}
				if got := rows[1][indexOf(rows[0], "mean_latency_ms", "mean_latency_ms_mean")]; got != "1.5" {
					t.Errorf("mode %s: mean latency %q, want 1.5", tt.mode, got)
				}
			}
		})
	}
}

// indexOf returns the index of the first of names in header, or -1.
func indexOf(header []string, names ...string) int {
	for i, h := range header {
		if slices.Contains(names, h) {
			return i
		}
	}
	return -1
}
