package numa

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrNoPeerCred: the connection carries no peer credentials (not a unix
// socket, or the kernel did not answer SO_PEERCRED).
var ErrNoPeerCred = errors.New("no peer credentials")

// Cred is the process at the other end of a unix socket as the kernel
// recorded it when the connection was made (SO_PEERCRED): its PID in the
// reader's PID namespace and its effective uid and gid, in the reader's
// user namespace.
type Cred struct {
	PID int
	UID uint32
	GID uint32
}

// PeerCred returns the credentials of the peer of conn, a unix socket
// connection.
func PeerCred(conn net.Conn) (Cred, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return Cred{}, fmt.Errorf("%T: %w", conn, ErrNoPeerCred)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return Cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	var uc *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		uc, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return Cred{}, fmt.Errorf("peer credentials: %w", err)
	}
	if serr != nil {
		return Cred{}, fmt.Errorf("getsockopt SO_PEERCRED: %v: %w", serr, ErrNoPeerCred)
	}
	return Cred{PID: int(uc.Pid), UID: uc.Uid, GID: uc.Gid}, nil
}

// PeerProcess returns a handle on the process at the other end of conn, a
// unix socket connection, from SO_PEERPIDFD (Linux 6.5 and later): the
// process that connected, by the PID PeerCred reports. Unlike a handle
// opened by PID, it names that process even after its PID is reused, so
// a read of /proc/PID done while the handle reports the process alive
// (Exited false after the read) was a read of the peer. Errors wrap
// ErrNotSupported where the kernel lacks SO_PEERPIDFD (PeerCred alone is
// what there is), ErrProcessGone when the peer has exited, ErrNoFiles
// when out of file descriptors, and ErrNoPeerCred when the socket records
// no peer.
func PeerProcess(conn net.Conn) (*Process, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%T: %w", conn, ErrNoPeerCred)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("peer pidfd: %w", err)
	}
	var uc *unix.Ucred
	pidfd := -1
	var serr error
	if err := raw.Control(func(fd uintptr) {
		if uc, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); serr != nil {
			serr = fmt.Errorf("getsockopt SO_PEERCRED: %v: %w", serr, ErrNoPeerCred)
			return
		}
		if pidfd, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); serr != nil {
			serr = fmt.Errorf("getsockopt SO_PEERPIDFD: %w", decodePeerPidfdErrno(serr))
		}
	}); err != nil {
		return nil, fmt.Errorf("peer pidfd: %w", err)
	}
	if serr != nil {
		return nil, serr
	}
	if uc.Pid <= 0 {
		unix.Close(pidfd)
		return nil, fmt.Errorf("the peer has no PID in this PID namespace: %w", ErrNoPeerCred)
	}
	return newProcess(DefaultProcRoot, int(uc.Pid), pidfd)
}

// decodePeerPidfdErrno maps the errnos of getsockopt SO_PEERPIDFD to
// sentinels: ENOPROTOOPT before Linux 6.5, ENODATA for a socket without
// a peer, ESRCH or EINVAL for a peer that exited (kernels that give no
// pidfd of an exited process).
func decodePeerPidfdErrno(err error) error {
	switch {
	case errors.Is(err, unix.ENOPROTOOPT):
		return fmt.Errorf("%w (%v: SO_PEERPIDFD needs Linux 6.5)", ErrNotSupported, err)
	case errors.Is(err, unix.ENODATA):
		return fmt.Errorf("%w (%v)", ErrNoPeerCred, err)
	}
	return decodePidfdErrno(err)
}

// CapSysPtrace is the bit of CAP_SYS_PTRACE in a capability set.
const CapSysPtrace = 19

// ProcCreds is what the kernel's ptrace access check looks at in a
// process: its uids and gids (real, effective, saved, filesystem), its
// effective capabilities, whether it is dumpable and its user and PID
// namespaces.
type ProcCreds struct {
	UIDs   [4]uint32
	GIDs   [4]uint32
	CapEff uint64
	// Dumpable is whether the kernel lets the process's owner inspect it:
	// /proc/PID belongs to the process's effective uid when it is
	// dumpable and to root when it is not (set-uid programs, prctl
	// PR_SET_DUMPABLE 0).
	Dumpable bool
	UserNS   string // the target of /proc/PID/ns/user, "" if unreadable
	PIDNS    string // the target of /proc/PID/ns/pid, "" if unreadable
}

// HasCap reports whether capability bit c is in the effective set.
func (p ProcCreds) HasCap(c uint) bool { return p.CapEff&(1<<c) != 0 }

// ReadProcCreds reads the credentials of process pid from procRoot ("" is
// /proc). A process that does not exist yields ErrProcessGone; any other
// failure is an error that says which file, never ErrProcessGone.
func ReadProcCreds(procRoot string, pid int) (ProcCreds, error) {
	c, err := readProcFile(procRoot, pid, "status", parseStatusCreds)
	if err != nil {
		return c, err
	}
	dir := procPath(procRoot, pid, "")
	fi, err := os.Stat(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return c, fmt.Errorf("pid %d: %w", pid, ErrProcessGone)
		}
		return c, fmt.Errorf("pid %d: %w", pid, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		c.Dumpable = st.Uid == c.UIDs[1]
	}
	c.UserNS, _ = os.Readlink(procPath(procRoot, pid, "ns/user"))
	c.PIDNS, _ = os.Readlink(procPath(procRoot, pid, "ns/pid"))
	return c, nil
}

// parseStatusCreds reads the Uid, Gid and CapEff lines of
// /proc/PID/status.
func parseStatusCreds(r io.Reader) (ProcCreds, error) {
	var c ProcCreds
	seen := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var err error
		switch key {
		case "Uid":
			err = parseIDs(val, &c.UIDs)
		case "Gid":
			err = parseIDs(val, &c.GIDs)
		case "CapEff":
			c.CapEff, err = strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		default:
			continue
		}
		if err != nil {
			return c, fmt.Errorf("%s: %v: %w", key, err, ErrParse)
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	if seen != 3 {
		return c, fmt.Errorf("want Uid, Gid and CapEff lines: %w", ErrParse)
	}
	return c, nil
}

func parseIDs(s string, ids *[4]uint32) error {
	f := strings.Fields(s)
	if len(f) != len(ids) {
		return fmt.Errorf("%d fields, want %d", len(f), len(ids))
	}
	for i, v := range f {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return err
		}
		ids[i] = uint32(n)
	}
	return nil
}
