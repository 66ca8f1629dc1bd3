package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon/api"
)

// goneProcess is above the largest pid_max (2^22): no process has it.
const goneProcess = "4194305"

// contractCase is one row of the exit-code contract: a command line, the
// code it must exit with and a part of its error message.
type contractCase struct {
	name string
	args []string
	code int
	msg  string
}

// TestExitCodeContract runs every command with each kind of failure it can
// meet and checks the README's exit codes: 0 ok, 1 failure, 2 usage, 3
// daemon not reachable, 4 permission denied, 5 not supported.
func TestExitCodeContract(t *testing.T) {
	dir := t.TempDir()
	self := strconv.Itoa(os.Getpid())
	noSock := filepath.Join(dir, "none.sock")
	sick := fakeDaemon(t, sickStatus())
	well := fakeDaemon(t, healthyStatus())
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.hcl", "epoch = \"1s\"\n")
	bad := write("bad.hcl", "epoch = \"soon\"\n")
	badSampler := write("sampler.hcl", "sampler \"bogus\" {}\n")
	noNUMA := filepath.Join(dir, "sys")
	if err := os.Mkdir(noNUMA, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []contractCase{
		{"version", []string{"version"}, ExitOK, ""},
		{"policies", []string{"policies"}, ExitOK, ""},
		{"trace workloads", []string{"trace", "workloads"}, ExitOK, ""},
		{"completion", []string{"completion", "bash"}, ExitOK, ""},
		{"check a good config", []string{"daemon", "--check", "--config", good}, ExitOK, ""},
		{"status of a healthy daemon", []string{"status", "--rate-window=0", "--socket", well}, ExitOK, ""},

		{"status of an unhealthy daemon", []string{"status", "--rate-window=0", "--socket", sick}, ExitError, "the daemon is unhealthy: 2 problems"},
		{"status --json of an unhealthy daemon", []string{"status", "--json", "--rate-window=0", "--socket", sick}, ExitError, "unhealthy"},
		{"daemon, missing config", []string{"daemon", "--config", filepath.Join(dir, "missing.hcl")}, ExitError, "missing.hcl"},
		{"check, missing config", []string{"daemon", "--check", "--config", filepath.Join(dir, "missing.hcl")}, ExitError, "missing.hcl"},
		{"check, invalid config", []string{"daemon", "--check", "--config", bad}, ExitError, "bad.hcl:1"},
		{"daemon, invalid config", []string{"daemon", "--config", bad}, ExitError, "bad.hcl:1"},
		{"check, unknown sampler", []string{"daemon", "--check", "--config", badSampler}, ExitError, "bogus"},
		{"placement, no such process", []string{"placement", "--pid", goneProcess, "--socket", noSock}, ExitError, "process is gone"},
		{"sample, no such process", []string{"sample", "--pid", goneProcess}, ExitError, "process is gone"},
		{"sample, no large mapping", []string{"sample", "--pid", self, "--min-size", "1099511627776000"}, ExitError, "no anonymous mapping"},
		{"sim, missing trace", []string{"sim", "--trace", filepath.Join(dir, "missing.jsonl")}, ExitError,
			"kvtier: opening trace " + filepath.Join(dir, "missing.jsonl") + ": no such file or directory\n"},
		{"trace stats, missing trace", []string{"trace", "stats", filepath.Join(dir, "missing.jsonl")}, ExitError,
			"kvtier: opening trace " + filepath.Join(dir, "missing.jsonl") + ": no such file or directory\n"},

		{"topology, missing --sysfs-root", []string{"topology", "--sysfs-root", filepath.Join(dir, "nonexistent")}, ExitUsage, "--sysfs-root"},
		{"topology, missing --procfs-root", []string{"topology", "--procfs-root", filepath.Join(dir, "nonexistent")}, ExitUsage, "--procfs-root"},
		{"daemon, bad --log-level", []string{"daemon", "--check", "--log-level", "loud"}, ExitUsage, "--log-level"},
		{"sample, no --pid", []string{"sample"}, ExitUsage, "--pid"},
		{"completion, unknown shell", []string{"completion", "tcsh"}, ExitUsage, "tcsh"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, "unknown command"},

		{"topology, a sysfs without NUMA nodes", []string{"topology", "--sysfs-root", noNUMA}, ExitUnsupported, "not supported"},
	}
	for _, args := range daemonCommands {
		tests = append(tests, contractCase{strings.Join(args, " ") + ", no daemon",
			append(args, "--socket", noSock), ExitUnreachable, "not running"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runCLI(tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.msg) {
				t.Errorf("kvtier %v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.msg)
			}
		})
	}
}

// TestExitCodeUsageEveryCommand gives every command of the tree an unknown
// flag and an unexpected argument where it takes none: exit 2 for all.
func TestExitCodeUsageEveryCommand(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	n := 0
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
		if !c.Runnable() || len(path) == 0 {
			return
		}
		n++
		if code, _, errs := runCLI(append(path, "--no-such-flag")...); code != ExitUsage {
			t.Errorf("kvtier %v --no-such-flag: exit %d (%q), want %d", path, code, errs, ExitUsage)
		}
	}
	walk(NewRoot(), nil)
	if n < 15 {
		t.Errorf("walked %d commands, want every one (at least 15)", n)
	}
}

// TestExitCodePermissionAsNobody runs the process-inspecting commands as
// nobody against init: /proc and ptrace refuse, exit 4.
func TestExitCodePermissionAsNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a command as another user needs root")
	}
	bin := kvtierBinary(t)
	for _, args := range [][]string{
		{"placement", "--pid", "1", "--socket", "/nonexistent.sock"},
		{"sample", "--pid", "1", "--duration", "100ms"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitPermission || !strings.Contains(stderr.String(), "permission denied") {
			t.Errorf("%v as nobody: %v, want exit %d\n%s", args, err, ExitPermission, stderr.String())
		}
	}
}

// sickStatus is a daemon whose only sampler failed.
func sickStatus() api.Status {
	st := fixtureStatus()
	st.Samplers = []api.SamplerStatus{{Name: "damon", Error: "opening DAMON: permission denied"}}
	return st
}

// healthyStatus is the fixture without its dropping sampler, with a
// warning that leaves it healthy.
func healthyStatus() api.Status {
	st := fixtureStatus()
	for i := range st.Samplers {
		st.Samplers[i].Drops = 0
	}
	st.Sampling = &api.SamplingStatus{Problem: "no sampler sees steady-state accesses: sw-page-faults sees page faults only"}
	return st
}

// fakeDaemon serves st at /v1/status on a unix socket and returns the
// socket's path.
func fakeDaemon(t *testing.T, st api.Status) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "fake.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/status") {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(st)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock
}
