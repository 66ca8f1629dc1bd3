package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonClient runs daemon/api/python's unittest suite against a
// daemon on a temporary socket.
func TestPythonClient(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the Python client's tests need it")
	}
	td := startDaemon(t, testConfig)
	dir, err := filepath.Abs(filepath.Join("api", "python"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_client")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KVTIER_SOCKET="+filepath.Join(td.dir, "k.sock"),
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	t.Logf("python3 -m unittest:\n%s", out)
	if err != nil {
		t.Fatalf("python3 -m unittest: %v", err)
	}
	if strings.Contains(string(out), "skipped") {
		t.Fatal("the Python tests skipped with the daemon's socket set")
	}
}
