package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/kvtier/kvtier/numa"
)

// fakeProcs is an injected /proc: credentials by pid, and errors.
type fakeProcs map[int]any // numa.ProcCreds or error

func (f fakeProcs) authorizer() authorizer {
	get := func(pid int) (numa.ProcCreds, error) {
		switch v := f[pid].(type) {
		case numa.ProcCreds:
			return v, nil
		case error:
			return numa.ProcCreds{}, v
		}
		return numa.ProcCreds{}, fmt.Errorf("pid %d: %w", pid, numa.ErrProcessGone)
	}
	return authorizer{creds: get, self: func() (numa.ProcCreds, error) { return get(0) }}
}

// procCreds is a process of uid:gid throughout, dumpable, in the initial
// namespaces, with the capabilities caps.
func procCreds(uid, gid uint32, caps uint64) numa.ProcCreds {
	return numa.ProcCreds{UIDs: [4]uint32{uid, uid, uid, uid}, GIDs: [4]uint32{gid, gid, gid, gid}, CapEff: caps,
		Dumpable: true, UserNS: "user:[1]", PIDNS: "pid:[1]"}
}

// TestMayAct checks who may act on which process: root and
// CAP_SYS_PTRACE of the host always, a user on its own dumpable processes
// of the same uid and gid only, and the error codes when a process is gone
// or cannot be read.
func TestMayAct(t *testing.T) {
	a := mayActProcs().authorizer()
	user := caller{pid: 100, uid: 1000, gid: 1000}
	tests := []struct {
		name   string
		c      caller
		target int
		code   int // 0: allowed
	}{
		{"root may act on init", rootCaller, 1, 0},
		{"root may act on anyone", caller{pid: 7, uid: 0}, 102, 0},
		{"itself", user, 100, 0},
		{"itself even unreadable", caller{pid: 300, uid: 1000, gid: 1000}, 300, 0},
		{"same uid and gid, dumpable", user, 101, 0},
		{"init", user, 1, 403},
		{"another user", user, 102, 403},
		{"set-uid program of the same user", user, 103, 403},
		{"not dumpable", user, 104, 403},
		{"another group", user, 105, 403},
		{"unreadable target", user, 300, 403},
		{"the daemon out of file descriptors", user, 301, 503},
		{"no such process", user, 999, 404},
		{"CAP_SYS_PTRACE", caller{pid: 200, uid: 1000, gid: 1000}, 102, 0},
		{"CAP_SYS_PTRACE on init", caller{pid: 200, uid: 1000, gid: 1000}, 1, 0},
		{"CAP_SYS_PTRACE of a user namespace", caller{pid: 201, uid: 1000, gid: 1000}, 102, 403},
		{"caller pid reused by another uid", caller{pid: 202, uid: 1000, gid: 1000}, 102, 403},
		{"caller gone", caller{pid: 998, uid: 1000, gid: 1000}, 102, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := a.mayAct(tt.c, tt.target)
			code := 0
			var re *reqError
			if errors.As(err, &re) {
				code = re.code
			} else if err != nil {
				t.Fatalf("mayAct = %v, not an API error", err)
			}
			if code != tt.code {
				t.Fatalf("mayAct(%+v, %d) = %v, want %d", tt.c, tt.target, err, tt.code)
			}
			if code == 403 && (strings.Contains(err.Error(), "uid") && strings.Contains(err.Error(), "2000")) {
				t.Errorf("the refusal %q tells about the process", err)
			}
		})
	}
}

// mayActProcs is the processes TestMayAct's callers act on: root's, the
// caller's own, another user's, set-uid, undumpable and other-group ones,
// callers with CAP_SYS_PTRACE in the host's and in a user namespace, and
// ones whose status cannot be read.
func mayActProcs() fakeProcs {
	setuid := procCreds(1000, 1000, 0)
	setuid.UIDs[1], setuid.UIDs[2] = 0, 0
	undumpable := procCreds(1000, 1000, 0)
	undumpable.Dumpable = false
	otherGroup := procCreds(1000, 1000, 0)
	otherGroup.GIDs[1] = 5
	containerCap := procCreds(1000, 1000, 1<<numa.CapSysPtrace)
	containerCap.UserNS = "user:[2]"
	return fakeProcs{
		0:   procCreds(0, 0, ^uint64(0)), // the daemon
		1:   procCreds(0, 0, ^uint64(0)),
		100: procCreds(1000, 1000, 0), // the caller's own processes
		101: procCreds(1000, 1000, 0),
		102: procCreds(2000, 2000, 0), // another user's
		103: setuid,
		104: undumpable,
		105: otherGroup,
		200: procCreds(1000, 1000, 1<<numa.CapSysPtrace), // a caller with CAP_SYS_PTRACE
		201: containerCap,
		202: procCreds(3000, 3000, 1<<numa.CapSysPtrace), // pid 202 now names someone else
		300: errors.New("reading /proc/300/status: too many open files"),
		301: &fs.PathError{Op: "open", Path: "/proc/301/status", Err: syscall.EMFILE},
	}
}

func TestMayOwn(t *testing.T) {
	tests := []struct {
		c     caller
		owner uint32
		want  bool
	}{
		{rootCaller, 1000, true},
		{caller{uid: 1000}, 1000, true},
		{caller{uid: 1000}, 0, false},
		{caller{uid: 1000}, 1001, false},
	}
	for _, tt := range tests {
		if got := tt.c.mayOwn(tt.owner); got != tt.want {
			t.Errorf("%+v.mayOwn(%d) = %v, want %v", tt.c, tt.owner, got, tt.want)
		}
	}
}

func TestRegisterPID(t *testing.T) {
	inContainer := procCreds(1000, 1000, 0)
	inContainer.PIDNS = "pid:[2]"
	d := &Daemon{auth: fakeProcs{0: procCreds(0, 0, 0), 100: procCreds(1000, 1000, 0), 200: inContainer}.authorizer()}
	tests := []struct {
		name     string
		c        caller
		pid      int
		want     int
		wantCode int
	}{
		{"omitted: the caller", caller{pid: 100, uid: 1000}, 0, 100, 0},
		{"omitted in a container: translated by the kernel", caller{pid: 200, uid: 1000}, 0, 200, 0},
		{"explicit, same namespace", caller{pid: 100, uid: 1000}, 101, 101, 0},
		{"explicit from a container", caller{pid: 200, uid: 1000}, 7, 0, http.StatusBadRequest},
		{"omitted, no peer pid", caller{uid: 1000}, 0, 0, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := d.registerPID(tt.c, tt.pid)
			var re *reqError
			switch {
			case tt.wantCode == 0 && (err != nil || got != tt.want):
				t.Fatalf("registerPID = %d, %v; want %d", got, err, tt.want)
			case tt.wantCode != 0 && (!errors.As(err, &re) || re.code != tt.wantCode):
				t.Fatalf("registerPID = %d, %v; want a %d", got, err, tt.wantCode)
			}
			if tt.name == "explicit from a container" && !strings.Contains(err.Error(), "omit pid") {
				t.Errorf("error %q does not say to omit the pid", err)
			}
		})
	}
}
