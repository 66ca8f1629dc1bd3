package daemon

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
)

// openAPIDoc is the part of daemon/api/openapi.json the route tests
// check (api/openapi_test.go checks its schemas).
type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

// loadOpenAPI parses the committed description.
func loadOpenAPI(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	readOpenAPI(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("openapi version %q, want 3.1.x", doc.OpenAPI)
	}
	return doc
}

// readOpenAPI decodes api/openapi.json into v.
func readOpenAPI(t *testing.T, v any) {
	t.Helper()
	b, err := os.ReadFile("api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("api/openapi.json: %v", err)
	}
}

// docRoutes lists the description's operations as "METHOD /path".
func docRoutes(doc openAPIDoc) []string {
	var out []string
	for path, ops := range doc.Paths {
		for m := range ops {
			if m == "parameters" || m == "summary" || m == "description" {
				continue
			}
			out = append(out, strings.ToUpper(m)+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

// sourceRoutes reads the patterns routes() registers from handlers.go:
// the first argument of each mux.HandleFunc call in it, with the v
// variable taken as "/"+api.Version as routes() sets it.
func sourceRoutes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "handlers.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "routes" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if ok && sel.Sel.Name == "HandleFunc" && len(call.Args) == 2 {
				out = append(out, concat(t, call.Args[0]))
			}
			return true
		})
	}
	if len(out) == 0 {
		t.Fatal("no mux.HandleFunc calls found in routes() in handlers.go")
	}
	sort.Strings(out)
	return out
}

// concat evaluates a pattern expression of string literals and v joined
// by +.
func concat(t *testing.T, e ast.Expr) string {
	t.Helper()
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		if err != nil {
			t.Fatal(err)
		}
		return s
	case *ast.Ident:
		if e.Name == "v" {
			return "/" + api.Version
		}
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			return concat(t, e.X) + concat(t, e.Y)
		}
	}
	t.Fatalf("route pattern: cannot evaluate %T", e)
	return ""
}

// TestOpenAPIRoutes checks that every route routes() registers is in
// daemon/api/openapi.json and every operation there is registered.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	got, want := docRoutes(doc), sourceRoutes(t)
	for _, r := range want {
		if !slices.Contains(got, r) {
			t.Errorf("route %s is served but not in api/openapi.json", r)
		}
	}
	for _, r := range got {
		if !slices.Contains(want, r) {
			t.Errorf("api/openapi.json has %s, which routes() does not serve", r)
		}
	}
}

// TestOpenAPIMethods asks the daemon's own mux, for every documented path,
// which methods it takes (the Allow header of a 405) and compares them
// with the description's; an undocumented path must be a 404.
func TestOpenAPIMethods(t *testing.T) {
	doc := loadOpenAPI(t)
	h := (&Daemon{}).routes()
	for path, ops := range doc.Paths {
		var want []string
		for m := range ops {
			want = append(want, strings.ToUpper(m))
		}
		if slices.Contains(want, http.MethodGet) {
			want = append(want, http.MethodHead)
		}
		sort.Strings(want)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPut, strings.ReplaceAll(path, "{id}", "1"), nil))
		if w.Code != http.StatusMethodNotAllowed {
			t.Errorf("PUT %s: %d, want 405", path, w.Code)
			continue
		}
		got := strings.Split(w.Header().Get("Allow"), ", ")
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: the mux allows %v, the description %v", path, got, want)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/nothing", nil))
	if w.Code != http.StatusNotFound {
		t.Errorf("GET /v1/nothing: %d, want 404", w.Code)
	}
}
