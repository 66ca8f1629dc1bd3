package systemd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/internal/testutil"
)

// TestMain lets the test binary double as a KV workload (see
// testutil.RunWorkload and startWorkload).
func TestMain(m *testing.M) { testutil.Main(m, nil) }

// kvtierBinary builds the kvtier binary once per run into a directory
// every user may read (tests run it as nobody and from a unit).
func kvtierBinary(t *testing.T) string { return testutil.Binary(t) }

// need skips the test when a tool is missing, saying which package has it.
func need(t *testing.T, tool, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s is not installed (Debian package %s)", tool, pkg)
	}
	return p
}

func needRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: " + why)
	}
}

// unitFor writes the unit with ExecStart pointing at bin into a temp dir.
func unitFor(t *testing.T, bin string) string {
	t.Helper()
	src, err := os.ReadFile("kvtier.service")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kvtier.service")
	out := []byte(strings.ReplaceAll(string(src), "/usr/bin/kvtier", bin))
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
