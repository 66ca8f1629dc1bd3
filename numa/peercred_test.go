package numa

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStatusCreds(t *testing.T) {
	const full = "Name:\tcat\nUid:\t1000\t1001\t1002\t1003\nGid:\t10\t11\t12\t13\nCapInh:\t0\nCapEff:\t0000000000080000\n"
	tests := []struct {
		name, in string
		want     ProcCreds
		err      bool
	}{
		{"full", full, ProcCreds{UIDs: [4]uint32{1000, 1001, 1002, 1003}, GIDs: [4]uint32{10, 11, 12, 13},
			CapEff: 1 << CapSysPtrace}, false},
		{"no capeff", "Uid:\t1 1 1 1\nGid:\t1 1 1 1\n", ProcCreds{}, true},
		{"short uid", "Uid:\t1 1 1\nGid:\t1 1 1 1\nCapEff:\t0\n", ProcCreds{}, true},
		{"bad cap", "Uid:\t1 1 1 1\nGid:\t1 1 1 1\nCapEff:\tzz\n", ProcCreds{}, true},
		{"empty", "", ProcCreds{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatusCreds(strings.NewReader(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if err != nil {
				if !errors.Is(err, ErrParse) {
					t.Errorf("err %v is not ErrParse", err)
				}
				return
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !got.HasCap(CapSysPtrace) {
				t.Error("HasCap(CAP_SYS_PTRACE) = false")
			}
		})
	}
}

func TestReadProcCredsSelf(t *testing.T) {
	c, err := ReadProcCreds("", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if c.UIDs[1] != uint32(os.Geteuid()) || c.GIDs[1] != uint32(os.Getegid()) {
		t.Errorf("creds %+v, want euid %d egid %d", c, os.Geteuid(), os.Getegid())
	}
	if !c.Dumpable || c.UserNS == "" || c.PIDNS == "" {
		t.Errorf("creds %+v: want dumpable with namespaces", c)
	}
	if _, err := ReadProcCreds("", 1<<30); !errors.Is(err, ErrProcessGone) {
		t.Errorf("a missing pid: %v, want ErrProcessGone", err)
	}
	// An unreadable procfs is an error, not an exit.
	if _, err := ReadProcCreds(filepath.Join(t.TempDir(), "x"), os.Getpid()); err == nil {
		t.Error("no procfs: no error")
	}
}

func TestPeerCred(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	release := make(chan struct{})
	defer close(release)
	go func() {
		if c, err := net.Dial("unix", sock); err == nil {
			<-release
			c.Close()
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cred, err := PeerCred(conn)
	if err != nil {
		t.Fatal(err)
	}
	if cred.PID != os.Getpid() || cred.UID != uint32(os.Geteuid()) || cred.GID != uint32(os.Getegid()) {
		t.Errorf("PeerCred = %+v, want this process", cred)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := PeerCred(a); !errors.Is(err, ErrNoPeerCred) {
		t.Errorf("PeerCred(pipe) = %v, want ErrNoPeerCred", err)
	}
}
