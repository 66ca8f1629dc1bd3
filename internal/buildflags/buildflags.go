// Package buildflags gives the flags `make build` builds kvtier with, for
// tests and tools that build the binary themselves.
package buildflags

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkg is the module path the version variables live under.
const pkg = "github.com/kvtier/kvtier"

// LDFlags returns the -ldflags value `make build` uses for the module at
// root (symbols stripped, cli.version and cli.commit stamped), so that
// binaries built by tests and the demo report the same version as the
// Makefile's. It asks `make print-ldflags`; without make it computes the
// same flags from git, and without git it stamps "dev" and "unknown" as
// the Makefile does.
func LDFlags(root string) string {
	cmd := exec.Command("make", "-s", "--no-print-directory", "-C", root, "print-ldflags")
	if out, err := cmd.Output(); err == nil && strings.Contains(string(out), "cli.version=") {
		return strings.TrimSpace(string(out))
	}
	version := gitOr(root, "dev", "describe", "--tags", "--always", "--dirty")
	commit := gitOr(root, "unknown", "rev-parse", "--short", "HEAD")
	return fmt.Sprintf("-s -w -X %s/cli.version=%s -X %s/cli.commit=%s", pkg, version, pkg, commit)
}

// gitOr runs git in root and returns its trimmed output, or def.
func gitOr(root, def string, args ...string) string {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s
	}
	return def
}

// ModuleRoot returns the directory of the main module's go.mod.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == "/dev/null" {
		return "", fmt.Errorf("finding the module root (go env GOMOD %q): %v", gomod, err)
	}
	return filepath.Dir(gomod), nil
}
