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

// schema is an OpenAPI 3.1 schema object (JSON Schema 2020-12), as far as
// the test reads it.
type schema struct {
	Type       schemaType        `json:"type"`
	Ref        string            `json:"$ref"`
	Items      *schema           `json:"items"`
	Properties map[string]schema `json:"properties"`
	Required   []string          `json:"required"`
}

// schemaType is a schema's "type": one name, or in OpenAPI 3.1 an array
// of names, where a value that may be null lists "null" beside its type
// (3.0's "nullable": true).
type schemaType []string

func (st *schemaType) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*st = schemaType{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(st))
}

// kind is the type other than "null" ("" when none), and nullable whether
// "null" is listed.
func (st schemaType) kind() (kind string, nullable bool) {
	for _, t := range st {
		if t == "null" {
			nullable = true
		} else if kind == "" {
			kind = t
		}
	}
	return kind, nullable
}

// goField is a struct field of types.go: its JSON name, whether it is
// omitempty, and the JSON type its Go type encodes to.
type goField struct {
	name      string
	omitEmpty bool
	kind      string // OpenAPI type, or "#/components/schemas/NAME" for a struct
	nilable   bool   // a slice, map or pointer: encoding/json may write null
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
				kind: jsonKind(t, fl.Type), nilable: nilable(fl.Type)})
		}
		out[ts.Name.Name] = fields
		return false
	})
	return out
}

// nilable reports whether a Go type expression is one encoding/json writes
// as null when nil.
func nilable(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.StarExpr, *ast.MapType:
		return true
	case *ast.ArrayType:
		return e.Len == nil // a slice, not an array
	}
	return false
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
		kind, nullable := p.Type.kind()
		if len(p.Type) > 2 || (len(p.Type) == 2 && !nullable) {
			t.Errorf("%s.%s: type %q: want one type, or one and \"null\"", name, f.name, p.Type)
		}
		if got := kind + p.Ref; got != f.kind {
			t.Errorf("%s.%s: openapi.json says %q, Go encodes %q", name, f.name, got, f.kind)
		}
		if nullable && !f.nilable {
			t.Errorf("%s.%s: openapi.json allows null, Go never encodes null here", name, f.name)
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

// TestOpenAPI31 checks that openapi.json is OpenAPI 3.1 throughout: its
// version, and none of 3.0's schema keywords that 3.1 (JSON Schema
// 2020-12) dropped or changed: "nullable" (a type array with "null"),
// boolean "exclusiveMinimum"/"exclusiveMaximum" (numbers in 3.1), and
// a schema's "example" (3.1's schemas take "examples", an array).
func TestOpenAPI31(t *testing.T) {
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", v)
	}
	// names: v's keys are names (of properties, schemas, ...), not keywords.
	var walk func(v any, at string, inSchema, names bool)
	walk = func(v any, at string, inSchema, names bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch {
				case names:
				case k == "nullable":
					t.Errorf("%s: \"nullable\" is OpenAPI 3.0; list \"null\" in the type instead", at)
				case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && isBool(e):
					t.Errorf("%s: boolean %q is OpenAPI 3.0; 3.1 takes the bound itself", at, k)
				case k == "example" && inSchema:
					t.Errorf("%s: a schema's \"example\" is OpenAPI 3.0; use \"examples\" (an array)", at)
				case k == "type" && inSchema && !isType(e):
					t.Errorf("%s: type %v: want a name or an array of names", at, e)
				}
				named := !names && (k == "properties" || k == "schemas" || k == "paths" || k == "responses" ||
					k == "content" || k == "headers")
				walk(e, at+"/"+k, inSchema || (!names && (k == "schema" || k == "schemas")), named)
			}
		case []any:
			for i, e := range v {
				walk(e, at+"/"+strconv.Itoa(i), inSchema, false)
			}
		}
	}
	walk(doc, "#", false, false)
}

func isBool(v any) bool { _, ok := v.(bool); return ok }

// isType reports whether v is a schema's type: a name, or an array of
// names.
func isType(v any) bool {
	switch v := v.(type) {
	case string:
		return true
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return len(v) > 0
	}
	return false
}
