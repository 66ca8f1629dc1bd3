package daemon

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestLogJSONDurations: JSON log lines carry durations as strings, through
// With, Named and every level; text lines are as hclog writes them.
func TestLogJSONDurations(t *testing.T) {
	tests := []struct {
		name string
		json bool
		want string
	}{
		{"json", true, `"took":"1.5s"`},
		{"text", false, "took=1.5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			l := NewLogger(LogConfig{Level: "trace", JSON: tt.json}, &b)
			l = l.With("epoch", 250*time.Millisecond).Named("loop")
			l.Info("epoch done", "took", 1500*time.Millisecond, "blocks", 3)
			l.Warn("slow", "took", 1500*time.Millisecond)
			for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				if !strings.Contains(line, tt.want) {
					t.Errorf("line %q lacks %q", line, tt.want)
				}
				if !tt.json {
					continue
				}
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil {
					t.Fatalf("not JSON: %q: %v", line, err)
				}
				if m["epoch"] != "250ms" || m["@module"] != "kvtier.loop" {
					t.Errorf("line %q: epoch %v, module %v", line, m["epoch"], m["@module"])
				}
			}
		})
	}
}
