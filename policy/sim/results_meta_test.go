package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedResultsStamped: the committed results name the version and
// commit that produced them (a `make build` binary), not "dev".
func TestCommittedResultsStamped(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("results", "*", FileMetadata))
	if len(paths) == 0 {
		t.Fatal("no committed results/*/metadata.json")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m Metadata
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if m.Version == "" || m.Version == "dev" || m.Commit == "" || m.Commit == "unknown" {
			t.Errorf("%s: version %q, commit %q: regenerate it with a binary from `make build`", p, m.Version, m.Commit)
		}
	}
}
