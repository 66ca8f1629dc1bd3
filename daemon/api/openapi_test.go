package api

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// schema is an OpenAPI schema object, as far as the test reads it.
type schema struct {
	Type       string            `json:"type"`
	Ref        string            `json:"$ref"`
	Items      *schema           `json:"items"`
	Properties map[string]schema `json:"properties"`
	Required   []string          `json:"required"`
}

// goField is a struct field of types.go: its JSON name, whether it is
// omitempty, and the JSON type its Go type encodes to.
type goField struct {
	name      string
	omitEmpty bool
	kind      string // OpenAPI type, or "#/components/schemas/NAME" for a struct
}

// loadSchemas parses openapi.json's component schemas.
func loadSchemas(t *testing.T) map[string]schema {
	t.Helper()
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc.Components.Schemas
}

// goStructs reads the struct types of types.go and their JSON fields.
func goStructs(t *testing.T) map[string][]goField {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "types.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]goField{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return false
		}
		var fields []goField
		for _, fl := range st.Fields.List {
			tag, err := strconv.Unquote(fl.Tag.Value)
			if err != nil {
				t.Fatal(err)
			}
			name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			fields = append(fields, goField{name: name, omitEmpty: strings.Contains(opts, "omitempty"),
				kind: jsonKind(t, fl.Type)})
		}
		out[ts.Name.Name] = fields
		return false
	})
	return out
}

// jsonKind is the OpenAPI type a Go type expression encodes to.
func jsonKind(t *testing.T, e ast.Expr) string {
	t.Helper()
	switch e := e.(type) {
	case *ast.StarExpr:
		return jsonKind(t, e.X)
	case *ast.ArrayType:
		return "array"
	case *ast.MapType:
		return "object"
	case *ast.SelectorExpr:
		if e.Sel.Name == "Time" {
			return "string"
		}
	case *ast.Ident:
		switch {
		case e.Name == "string":
			return "string"
		case e.Name == "bool":
			return "boolean"
		case strings.HasPrefix(e.Name, "float"):
			return "number"
		case strings.HasPrefix(e.Name, "int"), strings.HasPrefix(e.Name, "uint"):
			return "integer"
		case e.Obj != nil:
			return "#/components/schemas/" + e.Name
		}
	}
	t.Fatalf("types.go: no JSON type for %T", e)
	return ""
}

// TestOpenAPISchemas checks that every struct of types.go is a schema of
// openapi.json with the same fields and types, and no schema is left
// over; response types must require exactly their fields that are not
// omitempty.
func TestOpenAPISchemas(t *testing.T) {
	schemas, structs := loadSchemas(t), goStructs(t)
	for name := range schemas {
		if _, ok := structs[name]; !ok {
			t.Errorf("openapi.json schema %s is not a type in types.go", name)
		}
	}
	for name, fields := range structs {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("type %s is not in openapi.json's schemas", name)
			continue
		}
		checkFields(t, name, s, fields)
	}
}

// checkFields compares one schema with its Go type's fields.
func checkFields(t *testing.T, name string, s schema, fields []goField) {
	t.Helper()
	var names, required []string
	for _, f := range fields {
		names = append(names, f.name)
		if !f.omitEmpty {
			required = append(required, f.name)
		}
		p, ok := s.Properties[f.name]
		if !ok {
			t.Errorf("%s.%s: not in openapi.json", name, f.name)
			continue
		}
		if got := p.Type + p.Ref; got != f.kind {
			t.Errorf("%s.%s: openapi.json says %q, Go encodes %q", name, f.name, got, f.kind)
		}
	}
	for p := range s.Properties {
		if !slices.Contains(names, p) {
			t.Errorf("%s.%s: in openapi.json, not in types.go", name, p)
		}
	}
	if strings.HasSuffix(name, "Request") {
		return // what a client must send, not what Go omits
	}
	sort.Strings(required)
	got := slices.Clone(s.Required)
	sort.Strings(got)
	if !slices.Equal(got, required) {
		t.Errorf("%s: openapi.json requires %v, Go always sends %v", name, got, required)
	}
}
