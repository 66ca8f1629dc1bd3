package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// newHandlerDaemon builds a daemon without serving, for handler tests.
func newHandlerDaemon(t testing.TB, src string) *Daemon {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the daemon needs root for its BPF samplers and page queries")
	}
	cfg, err := ParseConfig("test.hcl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg.API.MaxBody = 4096
	if cfg.Record.Dir == DefaultTraceDir {
		cfg.Record.Dir = t.TempDir()
	}
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.closeAll)
	return d
}

// do sends a request to h as root.
func do(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	return doAs(h, rootCaller, method, path, body)
}

// doAs sends a request to h as caller c.
func doAs(h http.Handler, c caller, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req = req.WithContext(withCaller(req.Context(), c))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// threadID returns the ID of a thread of this process that is not its
// leader: pidfd_open refuses it (ENOENT on Linux >= 6.9).
func threadID(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n != os.Getpid() {
			return n
		}
	}
	t.Fatalf("/proc/self/task lists no thread besides the leader %d (the Go runtime always runs several)", os.Getpid())
	return 0
}

func TestBadRequests(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\n")
	h := d.routes()
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	pid, addr := os.Getpid(), testutil.Addr(buf)
	ok := do(h, "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":65536}`, pid, addr, len(buf)))
	if ok.Code != 201 {
		t.Fatalf("register = %d %s", ok.Code, ok.Body)
	}
	var reg api.Region
	json.Unmarshal(ok.Body.Bytes(), &reg)
	rp := fmt.Sprintf("/v1/regions/%d", reg.ID)

	tests := []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"unknown field", "POST", "/v1/regions", `{"pid":1,"colour":1}`, 400, `unknown field \"colour\"`},
		{"wrong type", "POST", "/v1/regions", `{"pid":"x"}`, 400, "field pid: want int"},
		{"empty", "POST", "/v1/regions", ``, 400, "empty body"},
		{"oversized", "POST", "/v1/regions", `{"name":"` + strings.Repeat("x", 5000) + `"}`, 413, "larger than 4096"},
		{"no pid", "POST", "/v1/regions", `{"addr":4096,"length":4096}`, 400, "gave no PID for your process"},
		{"negative pid", "POST", "/v1/regions", `{"pid":-2,"addr":4096,"length":4096}`, 400, "want a process ID > 0"},
		{"unaligned", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4097,"length":4096}`, pid), 400, "aligned"},
		{"bad block size", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"block_size":5000}`, pid), 400, "not a multiple of the page size"},
		{"small block size", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"block_size":512}`, pid), 400, "less than 4KiB"},
		{"huge block size", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"block_size":9223372036854775808}`, pid), 400, "more than 1GiB"},
		{"long tenant", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"tenant":"%s"}`, pid, strings.Repeat("t", 65)), 400, "65 bytes, want at most 64"},
		{"long name", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"name":"%s"}`, pid, strings.Repeat("n", 65)), 400, "name: 65 bytes"},
		{"invalid utf-8 tenant", "POST", "/v1/regions", fmt.Sprintf("{\"pid\":%d,\"addr\":4096,\"length\":4096,\"tenant\":\"a\xffb\"}", pid), 400, "invalid UTF-8"},
		{"lone surrogate name", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"name":"a\udc00"}`, pid), 400, "lone surrogate"},
		{"control char tenant", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096,"tenant":"a\nb"}`, pid), 400, "not a printable character"},
		{"no process", "POST", "/v1/regions", `{"pid":2147483000,"addr":4096,"length":4096}`, 404, "no such process"},
		{"thread id", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096}`, threadID(t)), 404, "no such process"},
		{"unmapped", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":8192}`, pid), 400, "does not map"},
		{"overlap", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":65536}`, pid, addr), 409, "overlaps region"},
		{"bad class", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":4096,"class":"hot"}`, pid, addr), 400, "unknown class"},
		{"pinned outside", "PATCH", rp, `{"pinned":[{"offset":1048576,"length":65536}]}`, 400, "outside the region"},
		{"bad id", "GET", "/v1/regions/x", ``, 400, "want a positive integer"},
		{"missing region", "GET", "/v1/regions/999", ``, 404, "no such region"},
		{"update missing", "PATCH", "/v1/regions/999", `{}`, 404, "no such region"},
		{"update bad priority", "PATCH", rp, `{"priority":"urgent"}`, 400, "unknown priority"},
		{"update negative refcount", "PATCH", rp, `{"refcount":-1}`, 400, "want >= 0"},
		{"update unaligned range", "PATCH", rp, `{"think_complete":[{"offset":1,"length":65536}]}`, 400, "multiples of the block size"},
		{"hints out of range", "POST", rp + "/hints", `{"blocks":[16]}`, 400, "has 16 blocks"},
		{"hints wrong type", "POST", rp + "/hints", `{"blocks":"all"}`, 400, "field blocks"},
		{"placement bad pid", "GET", "/v1/placement?pid=-3", ``, 400, "positive integer"},
		{"trace outside dir", "POST", "/v1/trace", `{"path":"/etc/kvtier-test.jsonl"}`, 403, "outside the record directory"},
		{"trace dotdot", "POST", "/v1/trace", `{"path":"a/../../x.jsonl"}`, 403, `\"..\" is not allowed`},
		{"trace empty", "POST", "/v1/trace", `{"path":""}`, 400, "empty"},
		{"trace not recording", "DELETE", "/v1/trace", ``, 409, "not recording"},
		{"unknown endpoint", "GET", "/v2/status", ``, 404, "no such endpoint"},
		{"wrong method", "PUT", "/v1/status", ``, 405, "allowed: GET, HEAD"},
		{"wrong method on region", "PUT", rp, ``, 405, "allowed: GET, PATCH, DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(h, tt.method, tt.path, tt.body)
			if rec.Code != tt.code {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, rec.Code, rec.Body, tt.code)
			}
			if tt.want != "" && !strings.Contains(rec.Body.String(), tt.want) {
				t.Fatalf("body %s does not say %q", rec.Body, tt.want)
			}
			var e api.Error
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("body %q is not a JSON error", rec.Body)
			}
		})
	}
}

func TestTraceRecording(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\n")
	h := d.routes()
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	rec := do(h, "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":65536,"tenant":"t"}`,
		os.Getpid(), testutil.Addr(buf), len(buf)))
	if rec.Code != 201 {
		t.Fatalf("register = %d %s", rec.Code, rec.Body)
	}
	path := d.Config().Record.Dir + "/trace.jsonl"
	if r := do(h, "POST", "/v1/trace", `{"path":"`+path+`"}`); r.Code != 200 {
		t.Fatalf("start trace = %d %s", r.Code, r.Body)
	}
	if r := do(h, "POST", "/v1/trace", `{"path":"`+path+`"}`); r.Code != 409 {
		t.Fatalf("second start = %d, want 409", r.Code)
	}
	if r := do(h, "POST", "/v1/regions/1/hints", `{"blocks":[0,1,1]}`); r.Code != 200 {
		t.Fatalf("hints = %d %s", r.Code, r.Body)
	}
	r := do(h, "DELETE", "/v1/trace", ``)
	var st api.TraceStatus
	json.Unmarshal(r.Body.Bytes(), &st)
	if r.Code != 200 || st.Records != 3 || st.Recording {
		t.Fatalf("stop trace = %d %+v", r.Code, st)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := bytes.Count(data, []byte("\n")); lines != 3 || !bytes.Contains(data, []byte(`"op":"access"`)) {
		t.Fatalf("trace has %d lines:\n%s", lines, data)
	}
}

// FuzzRequests sends arbitrary bodies to every endpoint that decodes one:
// the answer is always a 2xx or a 4xx with a JSON error, never a 5xx or a
// crash.
func FuzzRequests(f *testing.F) {
	d := newHandlerDaemon(f, "sampler \"fault\" {}\n")
	h := d.routes()
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	seed := fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":65536}`, os.Getpid(), testutil.Addr(buf), len(buf))
	if r := do(h, "POST", "/v1/regions", seed); r.Code != 201 {
		f.Fatalf("register = %d %s", r.Code, r.Body)
	}
	for _, s := range []string{seed, `{"class":"think_complete","think_complete":[{"offset":0,"length":65536}]}`,
		`{"blocks":[0,1,15]}`, `{"pinned":[]}`, `{"refcount":2,"priority":"low"}`, `{"path":"/nonexistent/x"}`, `{"path":"../x"}`,
		fmt.Sprintf(`{"addr":%d,"length":65536,"tenant":"a\udc00","name":"n"}`, testutil.Addr(buf))} {
		for ep := range uint8(4) {
			f.Add(ep, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, ep uint8, body []byte) {
		method, path := "POST", "/v1/regions"
		switch ep % 4 {
		case 1:
			method, path = "PATCH", "/v1/regions/1"
		case 2:
			path = "/v1/regions/1/hints"
		case 3:
			path = "/v1/trace"
		}
		rec := do(h, method, path, string(body))
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q = %d %s", method, path, body, rec.Code, rec.Body)
		}
		if rec.Code == 201 {
			var reg api.Region
			if json.Unmarshal(rec.Body.Bytes(), &reg) == nil && reg.ID > 1 {
				_ = d.removeRegion(reg.ID)
			}
		}
		if ep%4 == 3 && rec.Code == 200 {
			_, _ = d.StopTrace()
		}
	})
}
