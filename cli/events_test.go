package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEventTypesComplete checks that --type accepts every event type
// daemon/api declares (its Event* string constants): a type added there
// and not here could not be followed with --type.
func TestEventTypesComplete(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "daemon", "api", "types.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Event") {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			declared = append(declared, v)
		}
		return true
	})
	if len(declared) < 9 {
		t.Fatalf("found %d Event* constants in daemon/api/types.go, want at least 9: has the file changed?", len(declared))
	}
	for _, ty := range declared {
		if !slices.Contains(eventTypes, ty) {
			t.Errorf("event type %q is declared in daemon/api but missing from eventTypes", ty)
		}
		if want, err := eventFilter([]string{ty}); err != nil || !want[ty] {
			t.Errorf("--type %s: filter %v, error %v", ty, want, err)
		}
	}
}
