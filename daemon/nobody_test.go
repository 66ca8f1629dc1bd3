package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
)

// apiClientChild is the mode of a test-binary child that runs
// runAPIClient.
const apiClientChild = "api-client"

// Environment of the api-client child.
const (
	envSock       = "KVTIER_TEST_SOCK"
	envRootPID    = "KVTIER_TEST_ROOT_PID"
	envRootRegion = "KVTIER_TEST_ROOT_REGION"
)

// clientStep is one request of the api-client child and its answer.
type clientStep struct {
	Name string `json:"name"`
	Code int    `json:"code"`
	Body string `json:"body"`
}

// runAPIClient is the api-client child: as whatever user it runs as, it
// sends the requests of TestAPIAsNobody over the daemon's socket and
// prints one clientStep a line.
func runAPIClient() {
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", os.Getenv(envSock))
	}}}
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	addr := testutil.Addr(buf)
	rootRegion := "/v1/regions/" + os.Getenv(envRootRegion)
	steps := []struct{ name, method, path, body string }{
		{"register init", "POST", "/v1/regions", `{"pid":1,"addr":4096,"length":4096}`},
		{"register root's process", "POST", "/v1/regions",
			fmt.Sprintf(`{"pid":%s,"addr":4096,"length":4096}`, os.Getenv(envRootPID))},
		{"register itself", "POST", "/v1/regions", fmt.Sprintf(`{"addr":%d,"length":524288,"block_size":65536}`, addr)},
		{"register itself by pid", "POST", "/v1/regions",
			fmt.Sprintf(`{"pid":%d,"addr":%d,"length":524288,"block_size":65536}`, os.Getpid(), addr+524288)},
		{"list", "GET", "/v1/regions", ``},
		{"read root's region", "GET", rootRegion, ``},
		{"placement of root's region", "GET", rootRegion + "/placement", ``},
		{"change root's region", "PATCH", rootRegion, `{"priority":"low"}`},
		{"unregister root's region", "DELETE", rootRegion, ``},
		{"record a trace", "POST", "/v1/trace", `{"path":"nobody.jsonl"}`},
		{"record a trace outside", "POST", "/v1/trace", `{"path":"/etc/passwd"}`},
	}
	enc := json.NewEncoder(os.Stdout)
	for _, s := range steps {
		req, _ := http.NewRequest(s.method, "http://kvtier"+s.path, strings.NewReader(s.body))
		st := clientStep{Name: s.name}
		if resp, err := hc.Do(req); err != nil {
			st.Body = err.Error()
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			st.Code, st.Body = resp.StatusCode, string(b)
		}
		_ = enc.Encode(st)
	}
}

// copyTestBinary copies this test binary into a directory every user may
// search, so that a child may run it as another user.
func copyTestBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kvtier-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "daemon.test")
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAPIAsNobody runs a client as uid 65534 (a member of the socket's
// group) against a real daemon: pid 1 and root's process are 403, its own
// process is 201 (with and without pid), trace recording is 403, and root's
// region is neither listed nor readable nor changeable.
func TestAPIAsNobody(t *testing.T) {
	skipUnlessRoot(t)
	// A long epoch: nobody's regions must outlive its exit until root lists them
	// (an epoch reaps the regions of exited processes).
	td := startDaemon(t, "epoch = \"1h\"\nsampler \"sw-page-faults\" {}\napi {\n  group = \"65534\"\n}\n")
	for _, p := range []string{td.dir, filepath.Dir(td.dir)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wl := startWorkload(t)
	root, err := td.client.Register(context.Background(), api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr,
		Length: wl.Size, BlockSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copyTestBinary(t), "-test.run=^$")
	cmd.Env = append(os.Environ(), testutil.WorkloadEnv+"="+apiClientChild, envSock+"="+td.d.Config().API.Socket,
		envRootPID+"="+fmt.Sprint(wl.PID()), envRootRegion+"="+fmt.Sprint(root.ID))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client as nobody: %v\n%s", err, out)
	}
	want := map[string]int{"register init": 403, "register root's process": 403, "register itself": 201,
		"register itself by pid": 201, "list": 200, "read root's region": 404, "placement of root's region": 404,
		"change root's region": 404, "unregister root's region": 404, "record a trace": 403,
		"record a trace outside": 403}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var st clientStep
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatalf("client printed %q", sc.Text())
		}
		if st.Code != want[st.Name] {
			t.Errorf("%s as nobody = %d %s, want %d", st.Name, st.Code, st.Body, want[st.Name])
		}
		if st.Name == "list" && (strings.Count(st.Body, `"id"`) != 2 || strings.Contains(st.Body, fmt.Sprintf(`"pid":%d`, wl.PID()))) {
			t.Errorf("nobody lists %s, want its own two regions only", st.Body)
		}
		delete(want, st.Name)
	}
	if len(want) != 0 {
		t.Errorf("steps without an answer: %v", want)
	}
	if got, err := td.client.Region(context.Background(), root.ID); err != nil || got.Priority != "normal" {
		t.Errorf("root's region after nobody's attempts = %+v, %v", got, err)
	}
	if regs, _ := td.client.Regions(context.Background()); len(regs) != 3 {
		t.Errorf("root sees %d regions, want 3 (its own and nobody's two)", len(regs))
	}
}
