package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages writes the man pages: one per visible command, dated by
// SOURCE_DATE_EPOCH, none for the hidden man command.
func TestManPages(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	dir := t.TempDir()
	if code, _, errs := runCLI("man", dir); code != ExitOK {
		t.Fatalf("man %s: exit %d: %s", dir, code, errs)
	}
	tests := []struct{ page, want string }{
		{"kvtier.1", `.TH "KVTIER" "1" "Jan 2026" "kvtier ` + version + `" "kvtier manual"`},
		{"kvtier-daemon.1", "--check"},
		{"kvtier-status.1", "kvtier-status - Show the daemon's health"},
		{"kvtier-trace-gen.1", ".SH SYNOPSIS"},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join(dir, tt.page))
		if err != nil || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s (%v) lacks %q", tt.page, err, tt.want)
		}
		if strings.Contains(string(b), "Auto generated") {
			t.Errorf("%s carries cobra's auto-generated line", tt.page)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	var visible int
	for _, c := range NewRoot().Commands() {
		if !c.Hidden {
			visible++
		}
	}
	if len(pages) < visible+1 {
		t.Errorf("%d pages for %d visible commands and the root", len(pages), visible)
	}
	if _, err := os.Stat(filepath.Join(dir, "kvtier-man.1")); err == nil {
		t.Error("the hidden man command has a page")
	}
	for _, args := range [][]string{{"man"}, {"man", "a", "b"}} {
		if code, _, _ := runCLI(args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if code, _, errs := runCLI("man", dir); code != ExitUsage || !strings.Contains(errs, "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: exit %d %q", code, errs)
	}
}
