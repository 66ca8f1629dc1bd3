package sim

import (
	"encoding/json"
	"testing"
)

// TestResultJSONUnmeasured checks that a lab-model result writes null for
// the figures the model does not measure and that every other mode writes
// them as measured.
func TestResultJSONUnmeasured(t *testing.T) {
	unmeasured := []string{"p99_latency_ms", "repromotions", "repromotion_rate", "fast_utilisation"}
	tests := []struct {
		mode string
		want any // the value each unmeasured field but repromotions (an int64: 2) decodes to
	}{
		{ModeLab, nil},
		{"cache", 2.5},
		{"blocks", 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			r := Result{Policy: "lru", Mode: tt.mode, Accesses: 10, MeanLatencyMs: 1.25, FastHitRatio: 0.5,
				P99LatencyMs: 2.5, Repromotions: 2, RepromotionRate: 2.5, Utilisation: 2.5}
			data, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			for _, k := range unmeasured {
				v, ok := m[k]
				if !ok {
					t.Fatalf("%s missing from %s", k, data)
				}
				want := tt.want
				if k == "repromotions" && want != nil {
					want = 2.0
				}
				if v != want {
					t.Errorf("%s = %v, want %v", k, v, want)
				}
			}
			if m["mean_latency_ms"] != 1.25 || m["fast_hit_ratio"] != 0.5 || m["mode"] != tt.mode || m["accesses"] != 10.0 {
				t.Errorf("measured fields changed: %s", data)
			}
		})
	}
}
