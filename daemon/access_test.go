package daemon

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// TestRegionOwnership: a non-root caller registers its own process, sees
// and changes its own regions only, and learns nothing of root's.
func TestRegionOwnership(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\n")
	h := d.routes()
	wl := startWorkload(t)                                 // root's process
	user := caller{pid: os.Getpid(), uid: 1000, gid: 1000} // this process, as a user
	own, theirs := registerOwnAndRoots(t, h, user, wl)
	rp := fmt.Sprintf("/v1/regions/%d", theirs.ID)
	tests := []struct {
		name, method, path, body string
		code                     int
	}{
		{"register init", "POST", "/v1/regions", `{"pid":1,"addr":4096,"length":4096}`, 403},
		{"register root's process", "POST", "/v1/regions",
			fmt.Sprintf(`{"pid":%d,"addr":%d,"length":4096}`, wl.PID(), wl.Addr+(1<<20)), 403},
		{"read root's region", "GET", rp, ``, 404},
		{"change root's region", "PATCH", rp, `{"priority":"high"}`, 404},
		{"hint root's region", "POST", rp + "/hints", `{"blocks":[0]}`, 404},
		{"placement of root's region", "GET", rp + "/placement", ``, 404},
		{"unregister root's region", "DELETE", rp, ``, 404},
		{"record a trace", "POST", "/v1/trace", `{"path":"x.jsonl"}`, 403},
		{"stop a trace", "DELETE", "/v1/trace", ``, 403},
		{"change its own", "PATCH", fmt.Sprintf("/v1/regions/%d", own.ID), `{"priority":"high"}`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := doAs(h, user, tt.method, tt.path, tt.body)
			if rec.Code != tt.code {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, rec.Code, rec.Body, tt.code)
			}
			if strings.Contains(rec.Body.String(), "0x") {
				t.Errorf("the answer %s shows an address", rec.Body)
			}
		})
	}
	checkListsOwnOnly(t, h, user, own.ID)
}

// registerOwnAndRoots registers, as user, a buffer of this process without
// naming the pid, and, as root, wl's buffer; it returns both regions.
func registerOwnAndRoots(t *testing.T, h http.Handler, user caller, wl *testutil.Workload) (own, theirs api.Region) {
	t.Helper()
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	mine := doAs(h, user, "POST", "/v1/regions", fmt.Sprintf(`{"addr":%d,"length":%d,"block_size":65536}`,
		testutil.Addr(buf), len(buf)))
	if mine.Code != 201 {
		t.Fatalf("registering its own process = %d %s", mine.Code, mine.Body)
	}
	_ = json.Unmarshal(mine.Body.Bytes(), &own)
	if own.PID != os.Getpid() {
		t.Fatalf("a registration without pid names pid %d, want the caller %d", own.PID, os.Getpid())
	}
	root := do(h, "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":65536}`,
		wl.PID(), wl.Addr, wl.Size))
	if root.Code != 201 {
		t.Fatalf("root registering = %d %s", root.Code, root.Body)
	}
	_ = json.Unmarshal(root.Body.Bytes(), &theirs)
	return own, theirs
}

// checkListsOwnOnly checks that the region and placement lists show user
// its own region, own, only, while root sees both regions.
func checkListsOwnOnly(t *testing.T, h http.Handler, user caller, own uint64) {
	t.Helper()
	for _, path := range []string{"/v1/regions", "/v1/placement"} {
		var got []struct {
			ID     uint64 `json:"id"`
			Region uint64 `json:"region"`
		}
		rec := doAs(h, user, "GET", path, ``)
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || len(got) != 1 || got[0].ID+got[0].Region != own {
			t.Errorf("%s as a user = %s, want its own region %d only", path, rec.Body, own)
		}
	}
	if rec := do(h, "GET", "/v1/regions", ``); strings.Count(rec.Body.String(), `"id"`) != 2 {
		t.Errorf("/v1/regions as root = %s, want both regions", rec.Body)
	}
}

func TestEventFilter(t *testing.T) {
	o := newOwnerIndex()
	o.set(1, 1000)
	o.set(2, 0)
	user := o.eventFilter(caller{uid: 1000})
	if o.eventFilter(rootCaller) != nil {
		t.Error("root's filter is not nil")
	}
	tests := []struct {
		ev   api.Event
		want bool
	}{
		{api.Event{Type: api.EventRegionRegistered, Region: 1}, true},
		{api.Event{Type: api.EventRegionRegistered, Region: 2}, false},
		{api.Event{Type: api.EventRegionDropped, Region: 3}, false},
		{api.Event{Type: api.EventNodeFull}, true},
		{api.Event{Type: api.EventCrossTenantEvict, Tenant: "a"}, false},
	}
	for _, tt := range tests {
		if got := user(tt.ev); got != tt.want {
			t.Errorf("filter(%+v) = %v, want %v", tt.ev, got, tt.want)
		}
	}
}

// TestConfiguredLimits: api { min_block_size, max_block_size,
// max_label_bytes } bound what a registration may name, with a 400 that
// names the setting; a bad setting is a config error at its position.
func TestConfiguredLimits(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\napi {\n  min_block_size = \"64KiB\"\n  max_block_size = \"2MiB\"\n  max_label_bytes = 8\n}\n")
	h := d.routes()
	wl := startWorkload(t)
	body := func(bs uint64, tenant string) string {
		return fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":%d,"tenant":%q}`, wl.PID(), wl.Addr, wl.Size, bs, tenant)
	}
	for _, tc := range []struct {
		name, body, want string
		code             int
	}{
		{"below the minimum", body(32<<10, "a"), "api.min_block_size", 400},
		{"above the maximum", body(4<<20, "a"), "api.max_block_size", 400},
		{"long name", body(64<<10, "ninechars"), "api.max_label_bytes", 400},
		{"within", body(64<<10, "eightchr"), "", 201},
	} {
		rec := do(h, "POST", "/v1/regions", tc.body)
		if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %s, want %d naming %q", tc.name, rec.Code, rec.Body, tc.code, tc.want)
		}
	}
	for _, bad := range []struct{ src, pos string }{
		{"api {\n  min_block_size = \"1KiB\"\n}\n", "2:20"},
		{"api {\n  max_block_size = \"2GiB\"\n}\n", "2:20"},
		{"api {\n  min_block_size = \"2MiB\"\n  max_block_size = \"1MiB\"\n}\n", "3:20"},
		{"api {\n  max_label_bytes = 256\n}\n", "2:21"},
	} {
		if _, err := ParseConfig("limits.hcl", []byte(bad.src)); err == nil || !strings.Contains(err.Error(), "limits.hcl:"+bad.pos) {
			t.Errorf("config %q: error %v, want one at %s", bad.src, err, bad.pos)
		}
	}
}

// TestRegionLimits: one region over api.max_regions_per_process or
// api.max_regions is a 429 that names the setting.
func TestRegionLimits(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\napi {\n  max_regions = 3\n  max_regions_per_process = 2\n}\n")
	h := d.routes()
	wl := startWorkload(t)
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	reg := func(pid int, addr uint64) int {
		return do(h, "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":65536,"block_size":65536}`,
			pid, addr)).Code
	}
	self := uint64(testutil.Addr(buf))
	steps := []struct {
		name string
		pid  int
		addr uint64
		code int
	}{
		{"first of the process", os.Getpid(), self, 201},
		{"second of the process", os.Getpid(), self + 65536, 201},
		{"third of the process", os.Getpid(), self + 2*65536, 429},
		{"another process", wl.PID(), wl.Addr, 201},
		{"one more in all", wl.PID(), wl.Addr + 65536, 429},
	}
	for _, s := range steps {
		if got := reg(s.pid, s.addr); got != s.code {
			t.Fatalf("%s = %d, want %d", s.name, got, s.code)
		}
	}
	rec := do(h, "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":%d,"length":65536,"block_size":65536}`,
		os.Getpid(), self+2*65536))
	if !strings.Contains(rec.Body.String(), "api.max_regions") {
		t.Errorf("429 body %s does not name the setting", rec.Body)
	}
}

// TestTraceFiles: the API records only new files inside record.dir.
func TestTraceFiles(t *testing.T) {
	d := newHandlerDaemon(t, "sampler \"fault\" {}\n")
	h := d.routes()
	dir := d.Config().Record.Dir
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		code int
	}{
		{"existing.jsonl", 409},
		{existing, 409},
		{"link.jsonl", 409},
		{"out/new.jsonl", 403},
		{victim, 403},
		{"../x.jsonl", 403},
		{"nodir/x.jsonl", 400},
	}
	for _, tt := range tests {
		rec := do(h, "POST", "/v1/trace", fmt.Sprintf(`{"path":%q}`, tt.path))
		if rec.Code != tt.code {
			t.Errorf("trace %q = %d %s, want %d", tt.path, rec.Code, rec.Body, tt.code)
		}
		if rec.Code == 200 {
			_, _ = d.StopTrace()
		}
	}
	for _, f := range []string{victim, existing} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "keep" {
			t.Errorf("%s = %q, %v: changed", f, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.jsonl")); err == nil {
		t.Error("a trace was created outside record.dir")
	}
	if rec := do(h, "POST", "/v1/trace", `{"path":"new.jsonl"}`); rec.Code != 200 {
		t.Fatalf("a new name = %d %s", rec.Code, rec.Body)
	}
	if _, err := d.StopTrace(); err != nil {
		t.Fatal(err)
	}
}

// FuzzTraceName: whatever the request's path, an accepted name stays
// inside the record directory.
func FuzzTraceName(f *testing.F) {
	for _, s := range []string{"t.jsonl", "/var/lib/kvtier/traces/a/b", "../x", "a/../../x", "/etc/passwd",
		"/var/lib/kvtier/traces/../x", "/var/lib/kvtier/traces", "a//b/./c", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		name, err := traceName("/var/lib/kvtier/traces", path)
		if err == nil && !filepath.IsLocal(name) {
			t.Fatalf("traceName(%q) = %q, not local to the directory", path, name)
		}
	})
}

// FuzzCheckLabel: an accepted label is short, valid UTF-8 and printable.
func FuzzCheckLabel(f *testing.F) {
	for _, s := range []string{"", "tenant-a", "a\xffb", "\u00e9t\u00e9", "a\nb", strings.Repeat("x", 65)} {
		f.Add(s)
	}
	lim := DefaultLimits()
	f.Fuzz(func(t *testing.T, s string) {
		if lim.checkLabel("tenant", s) != nil {
			return
		}
		if len(s) > lim.MaxLabelBytes || !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
			t.Fatalf("checkLabel accepted %q", s)
		}
	})
}
