package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvtier/kvtier/internal/buildflags"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// Binary builds the kvtier binary as `make build` does (CGO_ENABLED=0,
// -trimpath, the Makefile's -ldflags: see buildflags.LDFlags) once per test process
// into a directory every user may read and search, so that a test may run
// it as another user or from a systemd unit, and returns its path. A failed
// build fails t; under -short the test is skipped instead (the build takes
// a while). Main removes the directory after the tests.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: building the kvtier binary takes a while")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "kvtier-test-bin-")
		if buildErr != nil {
			return
		}
		if buildErr = os.Chmod(buildDir, 0o755); buildErr != nil {
			return
		}
		root, err := buildflags.ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", buildflags.LDFlags(root), "-o", filepath.Join(buildDir, "kvtier"), ".")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building kvtier into %s: %v\n%s", buildDir, err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "kvtier")
}

// cleanup removes the directory Binary built into, if it did.
func cleanup() {
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
}

// SyncBuffer is a text buffer safe for concurrent writers, such as the
// goroutines of a daemon's logger. The zero value is empty and ready.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Eventually polls cond every 50ms until it holds, failing t when timeout
// passes first; what names the awaited condition in the failure.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
