package systemd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/kvtier/kvtier/daemon"
)

// TestReferenceConfig keeps examples/kvtier-reference.hcl true: it must
// parse, and every attribute and block the daemon's config accepts must be
// shown in it, so a new setting cannot go undocumented.
func TestReferenceConfig(t *testing.T) {
	path := filepath.Join("examples", "kvtier-reference.hcl")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.ParseConfig(path, src); err != nil {
		t.Fatalf("the reference config does not parse:\n%v", err)
	}
	decoder, err := os.ReadFile(filepath.Join("..", "daemon", "config_decode.go"))
	if err != nil {
		t.Fatal(err)
	}
	tag := regexp.MustCompile(`hcl:"([a-z_]+)(?:,(?:optional|block))?"`)
	for _, m := range tag.FindAllSubmatch(decoder, -1) {
		name := string(m[1])
		if name == "name" { // block labels
			continue
		}
		if !regexp.MustCompile(`(?m)^\s*` + name + `\b`).Match(src) {
			t.Errorf("%s does not show the setting %q that daemon/config_decode.go accepts", path, name)
		}
	}
}
