package main

import (
	"strings"
	"testing"
)

func TestParseExposition(t *testing.T) {
	in := `# HELP kvtier_epochs_total Epochs run.
# TYPE kvtier_epochs_total counter
kvtier_epochs_total 12
kvtier_migrated_bytes_total{direction="demote"} 4.194304e+06
kvtier_epoch_duration_seconds_bucket{le="0.0001"} 3
kvtier_epoch_duration_seconds_sum 0.25
go_goroutines 9
`
	m, err := parseExposition(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"kvtier_epochs_total":                             12,
		`kvtier_migrated_bytes_total{direction="demote"}`: 4194304,
		"kvtier_epoch_duration_seconds_sum":               0.25,
	}
	if len(m) != len(want) {
		t.Fatalf("parsed %v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if _, err := parseExposition(strings.NewReader("kvtier_x notanumber\n")); err == nil {
		t.Error("a malformed value parsed without error")
	}
}
