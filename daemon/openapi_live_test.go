package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveConfig is testConfig with one region per process, so that a second
// registration is a 429.
const liveConfig = testConfig + `
api { max_regions_per_process = 1 }
`

// liveCase is one request of TestOpenAPILive: {id} in path is the
// region the first case registered.
type liveCase struct {
	name, method, path, body string
	want                     int
}

// liveCases returns the requests in the order they run, for a workload
// buffer at addr of length n in process pid.
func liveCases(pid int, addr, n uint64) []liveCase {
	reg := fmt.Sprintf(`{"pid": %d, "addr": %d, "length": %d, "block_size": 65536, "tenant": "alice"}`, pid, addr, n)
	big := `{"blocks": [` + strings.Repeat("0,", 1<<20) + `0]}`
	return []liveCase{
		{"register", "POST", "/v1/regions", reg, 201},
		{"register over the per-process limit", "POST", "/v1/regions", reg, 429},
		{"register bad JSON", "POST", "/v1/regions", `{"pid": `, 400},
		{"register bad block size", "POST", "/v1/regions", strings.Replace(reg, "65536", "3", 1), 400},
		{"list", "GET", "/v1/regions", "", 200},
		{"one", "GET", "/v1/regions/{id}", "", 200},
		{"id zero", "GET", "/v1/regions/0", "", 400},
		{"no such region", "GET", "/v1/regions/999999", "", 404},
		{"update", "PATCH", "/v1/regions/{id}", `{"priority": "high", "refcount": 2}`, 200},
		{"update unknown field", "PATCH", "/v1/regions/{id}", `{"colour": "red"}`, 400},
		{"hints", "POST", "/v1/regions/{id}/hints", `{"blocks": [0, 1, 1]}`, 200},
		{"hints past the end", "POST", "/v1/regions/{id}/hints", `{"blocks": [999999]}`, 400},
		{"hints too large", "POST", "/v1/regions/{id}/hints", big, 413},
		{"placement", "GET", "/v1/regions/{id}/placement", "", 200},
		{"placement page", "GET", "/v1/regions/{id}/placement?offset=1&limit=2", "", 200},
		{"placement limit over the maximum", "GET", "/v1/regions/{id}/placement?limit=65537", "", 400},
		{"placement offset past the end", "GET", "/v1/regions/{id}/placement?offset=999999", "", 400},
		{"placements", "GET", "/v1/placement?pid=" + strconv.Itoa(pid), "", 200},
		{"placements page", "GET", "/v1/placement?offset=1&limit=1&pid=" + strconv.Itoa(pid), "", 200},
		{"placements bad pid", "GET", "/v1/placement?pid=x", "", 400},
		{"placements bad limit", "GET", "/v1/placement?limit=0", "", 400},
		{"status", "GET", "/v1/status", "", 200},
		{"topology", "GET", "/v1/topology", "", 200},
		{"policy", "GET", "/v1/policy", "", 200},
		{"events", "GET", "/v1/events", "", 200},
		{"trace state", "GET", "/v1/trace", "", 200},
		{"trace start", "POST", "/v1/trace", `{"path": "live.trace"}`, 200},
		{"trace start again", "POST", "/v1/trace", `{"path": "other.trace"}`, 409},
		{"trace stop", "DELETE", "/v1/trace", "", 200},
		{"trace stop again", "DELETE", "/v1/trace", "", 409},
		{"wrong method", "PUT", "/v1/regions/{id}", "", 405},
		{"unregister", "DELETE", "/v1/regions/{id}", "", 204},
		{"unregister again", "DELETE", "/v1/regions/{id}", "", 404},
	}
}

// TestOpenAPILive drives the real handlers of a running daemon and checks
// every answer against daemon/api/openapi.json: its status is one the
// operation documents, and its body has the documented schema's required
// fields (the Error schema's for 4xx). Every operation must answer a 2xx
// at least once.
func TestOpenAPILive(t *testing.T) {
	td := startDaemon(t, liveConfig)
	wl := startWorkload(t)
	doc := loadLiveDoc(t)
	hc := unixHTTPClient(filepath.Join(td.dir, "k.sock"))
	succeeded := map[string]bool{}
	var id string
	for _, c := range liveCases(wl.PID(), wl.Addr, wl.Size) {
		path := strings.ReplaceAll(c.path, "{id}", id)
		code, body := liveRequest(t, hc, c.method, path, c.body)
		if code != c.want {
			t.Errorf("%s: %s %s: %d %s, want %d", c.name, c.method, path, code, body, c.want)
			continue
		}
		if c.name == "register" {
			var r struct{ ID uint64 }
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("register: %v", err)
			}
			id = strconv.FormatUint(r.ID, 10)
		}
		op := strings.ToLower(c.method) + " " + doc.template(strings.SplitN(path, "?", 2)[0])
		if err := doc.check(op, code, body); err != nil {
			t.Errorf("%s: %s %s: %v", c.name, c.method, path, err)
		}
		if err := doc.checkQuery(op, path); err != nil {
			t.Errorf("%s: %s %s: %v", c.name, c.method, path, err)
		}
		if code < 300 {
			succeeded[op] = true
		}
	}
	for op := range doc.ops() {
		if !succeeded[op] {
			t.Errorf("%s: no case got a 2xx answer", op)
		}
	}
}

// liveRequest sends one request; the event stream is read for its
// headers and first moment only.
func liveRequest(t *testing.T, hc *http.Client, method, path, body string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://kvtier"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if strings.HasSuffix(path, "/events") {
		return resp.StatusCode, nil
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// unixHTTPClient is an HTTP client for the API socket.
func unixHTTPClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		},
	}}
}

// liveDoc is openapi.json as generic JSON, to follow its references.
type liveDoc map[string]any

// loadLiveDoc parses api/openapi.json as generic JSON.
func loadLiveDoc(t *testing.T) liveDoc {
	t.Helper()
	var d liveDoc
	readOpenAPI(t, &d)
	return d
}

// ops maps "method /path" to each operation object.
func (d liveDoc) ops() map[string]map[string]any {
	out := map[string]map[string]any{}
	for path, item := range d["paths"].(map[string]any) {
		for m, op := range item.(map[string]any) {
			out[m+" "+path] = op.(map[string]any)
		}
	}
	return out
}

// template is the documented path that path is an instance of (path
// itself when none is).
func (d liveDoc) template(path string) string {
	segs := strings.Split(path, "/")
	for tmpl := range d["paths"].(map[string]any) {
		ts := strings.Split(tmpl, "/")
		if len(ts) != len(segs) {
			continue
		}
		match := true
		for i := range ts {
			match = match && (ts[i] == segs[i] || strings.HasPrefix(ts[i], "{"))
		}
		if match {
			return tmpl
		}
	}
	return path
}

// anyOpOn returns one operation on path: a wrong method's 405 is
// documented on each of the path's operations.
func (d liveDoc) anyOpOn(path string) (map[string]any, bool) {
	for op, o := range d.ops() {
		if strings.HasSuffix(op, " "+path) {
			return o, true
		}
	}
	return nil, false
}

// resolve follows a $ref within the document.
func (d liveDoc) resolve(v any) map[string]any {
	m, _ := v.(map[string]any)
	for m != nil && m["$ref"] != nil {
		var cur any = map[string]any(d)
		for _, part := range strings.Split(strings.TrimPrefix(m["$ref"].(string), "#/"), "/") {
			cur = cur.(map[string]any)[part]
		}
		m, _ = cur.(map[string]any)
	}
	return m
}

// checkQuery says whether every query parameter of path is one op
// documents.
func (d liveDoc) checkQuery(op, path string) error {
	_, q, ok := strings.Cut(path, "?")
	o := d.ops()[op]
	if !ok || o == nil {
		return nil
	}
	vals, err := url.ParseQuery(q)
	if err != nil {
		return err
	}
	documented := map[string]bool{}
	params, _ := o["parameters"].([]any)
	for _, p := range params {
		if pm := d.resolve(p); pm["in"] == "query" {
			documented[pm["name"].(string)] = true
		}
	}
	for k := range vals {
		if !documented[k] {
			return fmt.Errorf("query parameter %q is not documented for %s", k, op)
		}
	}
	return nil
}

// check says whether an answer of op is documented: its status is one of
// op's responses, and its body matches the response's schema.
func (d liveDoc) check(op string, code int, body []byte) error {
	o, ok := d.ops()[op]
	if !ok && code == http.StatusMethodNotAllowed {
		o, ok = d.anyOpOn(strings.SplitN(op, " ", 2)[1])
	}
	if !ok {
		return fmt.Errorf("%s is not in openapi.json", op)
	}
	resp := d.resolve(o["responses"].(map[string]any)[strconv.Itoa(code)])
	if resp == nil {
		return fmt.Errorf("status %d is not documented for %s", code, op)
	}
	content, _ := resp["content"].(map[string]any)
	if content == nil || body == nil {
		if content == nil && len(body) > 0 {
			return fmt.Errorf("status %d documents no body, got %s", code, body)
		}
		return nil
	}
	media, ok := content["application/json"].(map[string]any)
	if !ok {
		return fmt.Errorf("status %d: no application/json schema", code)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("status %d: body %q: %v", code, body, err)
	}
	return d.match(media["schema"], v, "body")
}

// match checks value v against schema s: its JSON type, an object's
// required and known properties, an array's items.
func (d liveDoc) match(s any, v any, at string) error {
	sc := d.resolve(s)
	typ, nullable := schemaTypes(sc["type"])
	if v == nil {
		if nullable {
			return nil
		}
		return fmt.Errorf("%s: null, and the schema's type does not list \"null\"", at)
	}
	switch typ {
	case "object":
		return d.matchObject(sc, v, at)
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T, want an array", at, v)
		}
		for i, e := range a {
			if err := d.match(sc["items"], e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok || (typ == "integer" && math.Trunc(f) != f) {
			return fmt.Errorf("%s: %v, want %s", at, v, typ)
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: %v, want a string", at, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %v, want a boolean", at, v)
		}
	}
	return nil
}

// schemaTypes reads an OpenAPI 3.1 schema's "type": a name, or an array
// of names where "null" says the value may be null. It returns the type
// other than "null" ("" if none) and whether null is allowed.
func schemaTypes(t any) (typ string, nullable bool) {
	names := []any{t}
	if a, ok := t.([]any); ok {
		names = a
	}
	for _, n := range names {
		switch s, _ := n.(string); {
		case s == "null":
			nullable = true
		case typ == "":
			typ = s
		}
	}
	return typ, nullable
}

// matchObject checks an object's required and documented properties.
func (d liveDoc) matchObject(sc map[string]any, v any, at string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %T, want an object", at, v)
	}
	req, _ := sc["required"].([]any)
	for _, r := range req {
		if _, ok := m[r.(string)]; !ok {
			return fmt.Errorf("%s: required field %q missing", at, r)
		}
	}
	props, _ := sc["properties"].(map[string]any)
	for k, e := range m {
		sub := sc["additionalProperties"]
		if props != nil {
			var ok bool
			if sub, ok = props[k]; !ok {
				return fmt.Errorf("%s.%s: not in the schema", at, k)
			}
		}
		if err := d.match(sub, e, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}
