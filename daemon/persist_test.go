package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

func TestParseState(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string // want: "" parses, else a substring of the error
	}{
		{"empty list", `{"version":1,"regions":[]}`, ""},
		{"one region", `{"version":1,"regions":[{"request":{"pid":7,"addr":4096,"length":4096,"block_size":4096},` +
			`"refcount":0,"start_time":9,"uid":1000,"owner":1000}]}`, ""},
		{"syntax", "{\"version\":1,\n \"regions\": [}", "line 2 column 14"},
		{"type", "{\"version\":\"1\"}", "line 1 column 15"},
		{"unknown field", `{"version":1,"extra":2}`, `unknown field "extra"`},
		{"trailing data", `{"version":1} {}`, "line 1 column 15: data after the top-level object"},
		{"stray bracket", `{"version":1}}`, "line 1 column 14: data after the top-level object"},
		{"version", `{"version":2}`, "version 2, want 1"},
		{"no start time", `{"version":1,"regions":[{"request":{"pid":7}}]}`, "regions[0]"},
		{"negative refcount", `{"version":1,"regions":[{"request":{"pid":7},"start_time":1,"refcount":-1}]}`,
			"regions[0]"},
		{"empty", ``, "line 1 column 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseState([]byte(tc.src))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("parseState: %v", err)
			case tc.want == "":
			case err == nil:
				t.Fatalf("parseState succeeded, want an error with %q", tc.want)
			case !errors.Is(err, errCorruptState) || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q: want errCorruptState and %q", err, tc.want)
			}
		})
	}
}

// FuzzParseState: the parser never panics, and what it accepts survives
// a save and a parse unchanged.
func FuzzParseState(f *testing.F) {
	f.Add([]byte(`{"version":1,"regions":[{"request":{"pid":7,"addr":4096,"length":8192,"tenant":"a",` +
		`"pinned":[{"offset":0,"length":4096}]},"refcount":2,"start_time":9,"uid":1,"owner":1}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte("{\n\"version\": [1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseState(b)
		if err != nil {
			return
		}
		out, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		again, err := parseState(out)
		if err != nil {
			t.Fatalf("saved state does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(normState(st), normState(again)) {
			t.Fatalf("state changed by a save:\n%+v\n%+v", st, again)
		}
	})
}

// normState makes empty and nil lists equal.
func normState(st stateFile) stateFile {
	if len(st.Regions) == 0 {
		st.Regions = nil
	}
	for i := range st.Regions {
		if len(st.Regions[i].Request.Pinned) == 0 {
			st.Regions[i].Request.Pinned = nil
		}
	}
	return st
}

// persistConfig is testConfig with state_dir dir.
func persistConfig(dir string) string { return testConfig + "state_dir = \"" + dir + "\"\n" }

// registerForRestart starts a daemon with state in dir, registers the
// buffer of a workload, stops the daemon and returns the registration.
func registerForRestart(t *testing.T, dir string, pid int, addr, length uint64) api.Region {
	t.Helper()
	td := startDaemon(t, persistConfig(dir))
	reg, err := td.client.Register(context.Background(), api.RegisterRequest{PID: pid, Addr: addr, Length: length,
		Tenant: "alice", Priority: "high", Name: "kv"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	td.stop()
	return reg
}

func TestRestartKeepsRegistration(t *testing.T) {
	dir := t.TempDir()
	wl := startWorkload(t)
	before := registerForRestart(t, dir, wl.PID(), wl.Addr, wl.Size)
	td := startDaemon(t, persistConfig(dir))
	regs, err := td.client.Regions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) != 1 {
		t.Fatalf("%d regions after the restart, want 1\n%s", len(regs), td.logs)
	}
	got := regs[0]
	if got.ID != before.ID || got.PID != before.PID || got.Addr != before.Addr || got.Length != before.Length || got.Tenant != "alice" ||
		got.Priority != "high" || got.Name != "kv" || got.Blocks != before.Blocks {
		t.Errorf("restored region %+v, registered %+v", got, before)
	}
	if !strings.Contains(td.logs.String(), "restored=1") {
		t.Errorf("no restored=1 in the log:\n%s", td.logs)
	}
}

// TestStateDirCreated: a missing state_dir is created (0700) and the
// registrations survive a restart.
func TestStateDirCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "var", "lib", "kvtier")
	wl := startWorkload(t)
	registerForRestart(t, dir, wl.PID(), wl.Addr, wl.Size)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state_dir after the first daemon: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err != nil {
		t.Fatal(err)
	}
	td := startDaemon(t, persistConfig(dir))
	if regs, err := td.client.Regions(context.Background()); err != nil || len(regs) != 1 {
		t.Fatalf("after the restart: %+v, %v\n%s", regs, err, td.logs)
	}
}

// TestRestartKeepsRegionID: a restored region keeps its ID (the engine
// holds it for hints and changes) even when lower IDs are gone, and the
// next registration gets a higher one.
func TestRestartKeepsRegionID(t *testing.T) {
	dir := t.TempDir()
	wl := startWorkload(t)
	ctx := context.Background()
	td := startDaemon(t, persistConfig(dir))
	req := api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size}
	first, err := td.client.Register(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := td.client.Unregister(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	before, err := td.client.Register(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	td.stop()
	if before.ID == 1 {
		t.Fatalf("the second registration has ID 1: the test needs a gap")
	}
	td = startDaemon(t, persistConfig(dir))
	regs, err := td.client.Regions(ctx)
	if err != nil || len(regs) != 1 {
		t.Fatalf("after the restart: %+v, %v\n%s", regs, err, td.logs)
	}
	if regs[0].ID != before.ID {
		t.Errorf("restored region has ID %d, registered as %d", regs[0].ID, before.ID)
	}
	if err := td.client.Unregister(ctx, regs[0].ID); err != nil {
		t.Fatal(err)
	}
	next, err := td.client.Register(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID <= before.ID {
		t.Errorf("a registration after the restart has ID %d, not above the restored %d", next.ID, before.ID)
	}
}

// TestRestartDropsChangedProcess: a saved registration whose process
// started at another time, has another uid or exited is dropped and
// logged.
func TestRestartDropsChangedProcess(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*savedRegion, *testutil.Workload)
		reason string
	}{
		{"start time", func(r *savedRegion, _ *testutil.Workload) { r.StartTime++ }, "started at tick"},
		{"uid", func(r *savedRegion, _ *testutil.Workload) { r.UID++ }, "now has uid"},
		{"exited", func(_ *savedRegion, wl *testutil.Workload) { wl.Kill() }, "exited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			wl := startWorkload(t)
			registerForRestart(t, dir, wl.PID(), wl.Addr, wl.Size)
			path := filepath.Join(dir, StateFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := parseState(b)
			if err != nil || len(st.Regions) != 1 {
				t.Fatalf("state file: %v, %d regions\n%s", err, len(st.Regions), b)
			}
			tc.change(&st.Regions[0], wl)
			if b, err = json.Marshal(st); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			td := startDaemon(t, persistConfig(dir))
			regs, err := td.client.Regions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(regs) != 0 {
				t.Fatalf("%d regions after the restart, want the changed process's dropped", len(regs))
			}
			if logs := td.logs.String(); !strings.Contains(logs, "saved registration dropped") ||
				!strings.Contains(logs, tc.reason) {
				t.Errorf("the drop is not logged with %q:\n%s", tc.reason, logs)
			}
			if b, err = os.ReadFile(path); err != nil || !strings.Contains(string(b), `"regions": []`) {
				t.Errorf("the state file still holds the dropped registration: %v\n%s", err, b)
			}
		})
	}
}

func TestRestartCorruptStateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, StateFile)
	if err := os.WriteFile(path, []byte("{\"version\":1,\n\"regions\":[{]}"), 0o600); err != nil {
		t.Fatal(err)
	}
	td := startDaemon(t, persistConfig(dir))
	if _, err := td.client.Status(context.Background()); err != nil {
		t.Fatalf("the daemon does not serve: %v", err)
	}
	if logs := td.logs.String(); !strings.Contains(logs, path+": corrupt state file: line 2 column 13") {
		t.Errorf("the log does not name the file and position:\n%s", logs)
	}
	aside, _ := filepath.Glob(path + ".corrupt-*")
	if _, err := os.Stat(path); len(aside) != 1 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the corrupt file is not moved aside: %v, stat %v", aside, err)
	}
}
