package buildflags

import (
	"strings"
	"testing"
)

func TestLDFlags(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, root, version string }{
		{"the module, as the Makefile builds it", root, gitOr(root, "dev", "describe", "--tags", "--always", "--dirty")},
		{"no make file and no git: the Makefile's defaults", t.TempDir(), "dev"},
	}
	for _, tt := range tests {
		got := LDFlags(tt.root)
		for _, want := range []string{"-s -w ", "-X " + pkg + "/cli.version=" + tt.version + " ", "-X " + pkg + "/cli.commit="} {
			if !strings.Contains(got+" ", want) {
				t.Errorf("%s: LDFlags(%s) = %q, lacks %q", tt.name, tt.root, got, want)
			}
		}
	}
}
