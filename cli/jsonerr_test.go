package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONErrors: under --json a failing command prints one JSONError
// line on stderr (and nothing on stdout); without it, "kvtier: ...".
func TestJSONErrors(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "none.sock")
	tests := []struct {
		name string
		args []string
		code int
		json bool
		want string
	}{
		{"unreachable", []string{"status", "--socket", sock, "--json"}, ExitUnreachable, true, "not running"},
		{"unreachable, text", []string{"status", "--socket", sock}, ExitUnreachable, false, "not running"},
		{"bad flag value", []string{"regions", "--socket", sock, "--json", "--pid", "-3"}, ExitUsage, true, "--pid -3"},
		{"unknown flag", []string{"regions", "--json", "--colour"}, ExitUsage, true, "colour"},
		{"json=false", []string{"status", "--socket", sock, "--json=false"}, ExitUnreachable, false, "not running"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(tt.args...)
			if code != tt.code || out != "" {
				t.Fatalf("%v = %d, stdout %q; want %d and no output", tt.args, code, out, tt.code)
			}
			if !tt.json {
				if !strings.HasPrefix(errs, "kvtier: ") || !strings.Contains(errs, tt.want) {
					t.Errorf("stderr %q, want a kvtier: line saying %q", errs, tt.want)
				}
				return
			}
			var e JSONError
			dec := json.NewDecoder(strings.NewReader(errs))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil || e.ExitCode != tt.code || !strings.Contains(e.Error, tt.want) {
				t.Errorf("stderr %q: %+v, %v; want a JSON error with exit_code %d saying %q", errs, e, err, tt.code, tt.want)
			}
			if dec.More() {
				t.Errorf("stderr %q has more than one JSON value", errs)
			}
		})
	}
}
