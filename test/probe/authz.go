package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/kvtier/kvtier/daemon/api"
)

// asUser drops to uid and gid (no supplementary groups) and execs argv:
// the guest's busybox has no su, chpst or setpriv. The exec makes the
// process dumpable again, as a login would.
func asUser(uid, gid int, argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setgid(gid); err != nil {
		return fmt.Errorf("setgid %d: %w", gid, err)
	}
	if err := syscall.Setuid(uid); err != nil {
		return fmt.Errorf("setuid %d: %w", uid, err)
	}
	return syscall.Exec(path, argv, os.Environ())
}

// regionID is the id of the first region of pid the caller may list.
func regionID(socket string, pid int) (uint64, error) {
	c := api.NewClient(socket)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	regions, err := c.Regions(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range regions {
		if r.PID == pid {
			return r.ID, nil
		}
	}
	return 0, fmt.Errorf("no region of pid %d", pid)
}

// authzStep is one request of authz and its answer.
type authzStep struct {
	Name string `json:"name"`
	Code int    `json:"code"`
	Body string `json:"body"`
}

// authzReport is what authz prints.
type authzReport struct {
	UID   int         `json:"uid"`
	GID   int         `json:"gid"`
	PID   int         `json:"pid"`
	Steps []authzStep `json:"steps"`
}

// authz sends, as whatever user it runs as, the requests an unprivileged
// caller must be refused (pid 1, another user's process rootPID and its
// region rootRegion, trace recording) or granted (its own process), and
// reports every answer.
func authz(socket string, rootPID int, rootRegion uint64) (*authzReport, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
	defer hc.CloseIdleConnections()
	const size = 1 << 20
	buf, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	for i := 0; i < size; i += 4096 {
		buf[i] = 1
	}
	addr := uintptrOf(buf)
	half := size / 2
	region := "/v1/regions/" + strconv.FormatUint(rootRegion, 10)
	steps := []struct{ name, method, path, body string }{
		{"register-pid1", "POST", "/v1/regions", `{"pid":1,"addr":4096,"length":4096}`},
		{"register-root-process", "POST", "/v1/regions", fmt.Sprintf(`{"pid":%d,"addr":4096,"length":4096}`, rootPID)},
		{"register-itself", "POST", "/v1/regions", fmt.Sprintf(`{"addr":%d,"length":%d,"block_size":4096}`, addr, half)},
		{"register-itself-by-pid", "POST", "/v1/regions",
			fmt.Sprintf(`{"pid":%d,"addr":%d,"length":%d,"block_size":4096}`, os.Getpid(), addr+uintptr(half), half)},
		{"list", "GET", "/v1/regions", ``},
		{"read-root-region", "GET", region, ``},
		{"placement-root-region", "GET", region + "/placement", ``},
		{"change-root-region", "PATCH", region, `{"priority":"low"}`},
		{"hint-root-region", "POST", region + "/hints", `{"blocks":[0]}`},
		{"unregister-root-region", "DELETE", region, ``},
		{"placement-all", "GET", "/v1/placement", ``},
		{"trace-inside", "POST", "/v1/trace", `{"path":"nobody.jsonl"}`},
		{"trace-outside", "POST", "/v1/trace", `{"path":"/etc/kvtier/nobody.jsonl"}`},
	}
	rep := &authzReport{UID: os.Getuid(), GID: os.Getgid(), PID: os.Getpid()}
	for _, s := range steps {
		st := authzStep{Name: s.name}
		req, err := http.NewRequest(s.method, "http://kvtier"+s.path, strings.NewReader(s.body))
		if err != nil {
			return nil, err
		}
		if s.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if resp, err := hc.Do(req); err != nil {
			st.Body = err.Error()
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			st.Code, st.Body = resp.StatusCode, strings.TrimSpace(string(b))
		}
		rep.Steps = append(rep.Steps, st)
	}
	return rep, nil
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
