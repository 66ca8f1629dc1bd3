package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/kvtier/kvtier/numa"
)

// caller is who sent an API request: the peer of the unix socket
// connection, as the kernel recorded it (SO_PEERCRED). uid and pid are in
// the daemon's user and PID namespaces.
//
// pid names the caller's process only while that process lives: once it
// exits, the PID may name another. Where the kernel has SO_PEERPIDFD
// (Linux 6.5), a request whose checks read /proc/pid takes a handle on
// the connecting process itself (withPeer), and a read counts as the
// caller's only if the handle still reports it alive after it (alive).
// Without SO_PEERPIDFD, pid is trusted as SO_PEERCRED gave it.
type caller struct {
	pid int
	uid uint32
	gid uint32
	// peer is the caller's process from SO_PEERPIDFD (withPeer); nil
	// without it. peerErr is why a kernel with SO_PEERPIDFD gave none: the
	// caller exited, or the daemon is out of file descriptors.
	peer    *numa.Process
	peerErr error
}

// root reports whether the caller is uid 0, who may do everything.
func (c caller) root() bool { return c.uid == 0 }

// rootCaller is the daemon itself (rules, the config's record block).
var rootCaller = caller{}

// Sentinels of the authorization checks.
var (
	errNoCred = errors.New("the connection carries no peer credentials")
)

type (
	credKey struct{}
	connKey struct{}
)

// connContext records the peer credentials of each API connection in its
// context (http.Server.ConnContext). A connection whose credentials cannot
// be read gets an error in their place, and every request on it is
// refused.
func connContext(ctx context.Context, conn net.Conn) context.Context {
	ctx = context.WithValue(ctx, connKey{}, conn)
	cred, err := numa.PeerCred(conn)
	if err != nil {
		return context.WithValue(ctx, credKey{}, err)
	}
	return context.WithValue(ctx, credKey{}, caller{pid: cred.PID, uid: cred.UID, gid: cred.GID})
}

// withCaller returns ctx carrying c as the request's caller.
func withCaller(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, credKey{}, c)
}

// callerOf returns the caller of r; without credentials it is a 403.
func callerOf(r *http.Request) (caller, error) {
	switch v := r.Context().Value(credKey{}).(type) {
	case caller:
		return v, nil
	case error:
		return caller{}, &reqError{http.StatusForbidden, fmt.Sprintf("%v (%v)", errNoCred, v)}
	}
	return caller{}, &reqError{http.StatusForbidden, errNoCred.Error()}
}

// withPeer returns c with a handle on its process taken from r's
// connection (SO_PEERPIDFD), for the checks that read /proc/c.pid (alive);
// release closes it once the request is done. Root needs none (it may do
// everything), nor does a kernel without SO_PEERPIDFD (before Linux 6.5),
// where c is returned as it is.
func withPeer(r *http.Request, c caller) (_ caller, release func()) {
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	if c.root() || conn == nil {
		return c, func() {}
	}
	p, err := numa.PeerProcess(conn)
	switch {
	case err == nil && p.PID() != c.pid:
		p.Close()
		c.peerErr = fmt.Errorf("SO_PEERPIDFD names pid %d, SO_PEERCRED pid %d", p.PID(), c.pid)
	case err == nil:
		c.peer = p
		return c, func() { p.Close() }
	case errors.Is(err, numa.ErrNotSupported):
	default:
		c.peerErr = err
	}
	return c, func() {}
}

// alive returns nil if c.pid still names the caller's process: its
// handle (withPeer) reports it alive, or there is no handle to ask (a
// kernel without SO_PEERPIDFD, or the daemon itself). A read of
// /proc/c.pid, or a handle opened on c.pid, before alive returned nil was
// of the caller. Otherwise it is forbidden(pid), or a 503 when the daemon
// could not take the handle for want of file descriptors.
func (c caller) alive(pid int) error {
	switch {
	case c.peerErr != nil && numa.OutOfFiles(c.peerErr):
		return outOfFiles(c.pid, c.peerErr)
	case c.peerErr != nil, c.peer != nil && c.peer.Exited():
		return forbidden(pid)
	}
	return nil
}

// authorizer decides whether a caller may act on a process, by the
// kernel's ptrace access rules. creds reads a process's credentials
// (numa.ReadProcCreds in the daemon; injected in tests), self is the
// daemon's own.
type authorizer struct {
	creds func(pid int) (numa.ProcCreds, error)
	self  func() (numa.ProcCreds, error)
}

// forbidden is the answer for a process the caller may not act on. It
// says nothing about the process: not whether it exists, not who owns it,
// not what it maps.
func forbidden(pid int) error {
	return &reqError{http.StatusForbidden, fmt.Sprintf("pid %d: permission denied: you may register only "+
		"your own processes (same uid and gid, dumpable) unless you have CAP_SYS_PTRACE or are root", pid)}
}

// mayAct returns nil if c may act on process pid: c is root, or c is that
// process (still alive, caller.alive: call mayAct after opening the
// process's handle), or c could ptrace it. A process that does not exist is a 404
// (kill(2) says as much to anyone); a daemon out of file descriptors is a
// 503 (outOfFiles); every other refusal is forbidden(pid).
func (a authorizer) mayAct(c caller, pid int) error {
	if c.root() {
		return nil
	}
	if c.pid == pid {
		return c.alive(pid)
	}
	t, err := a.creds(pid)
	if errors.Is(err, numa.ErrProcessGone) {
		return notFound("pid %d: no such process", pid)
	}
	if numa.OutOfFiles(err) {
		return outOfFiles(pid, err) // the daemon's shortage, not a refusal
	}
	if err != nil {
		return forbidden(pid)
	}
	if sameOwner(c, t) {
		return nil
	}
	if a.hasPtraceCap(c) {
		return nil
	}
	return forbidden(pid)
}

// sameOwner is the kernel's uid rule: the caller's uid and gid equal every
// uid and gid of the target (real, effective, saved, fs), and the target
// is dumpable.
func sameOwner(c caller, t numa.ProcCreds) bool {
	for i := range t.UIDs {
		if t.UIDs[i] != c.uid || t.GIDs[i] != c.gid {
			return false
		}
	}
	return t.Dumpable
}

// hasPtraceCap reports whether the caller has CAP_SYS_PTRACE in its
// effective set, in the daemon's user namespace (a capability held in a
// user namespace of its own, a rootless container's, counts for nothing
// here). The caller's process must still have the uid it connected with,
// and still be the caller's after the read (caller.alive).
func (a authorizer) hasPtraceCap(c caller) bool {
	pc, err := a.creds(c.pid)
	if err != nil || c.alive(c.pid) != nil || pc.UIDs[1] != c.uid || !pc.HasCap(numa.CapSysPtrace) {
		return false
	}
	self, err := a.self()
	return err == nil && pc.UserNS != "" && pc.UserNS == self.UserNS
}

// mayOwn reports whether c may see and change a region owned by uid.
func (c caller) mayOwn(owner uint32) bool { return c.root() || c.uid == owner }

// requireRoot refuses everyone but root.
func requireRoot(c caller, what string) error {
	if c.root() {
		return nil
	}
	return &reqError{http.StatusForbidden, what + ": permission denied: only root may do this"}
}

// registerPID is the process a registration is about. No pid (0) means
// the caller's own process, as the kernel named it in the daemon's PID
// namespace. An explicit pid from a caller in another PID namespace (a
// container) would name a different process here, so it is refused.
func (d *Daemon) registerPID(c caller, pid int) (int, error) {
	if pid == 0 {
		if c.pid <= 0 {
			return 0, badRequest("pid: omitted, and the kernel gave no PID for your process in the daemon's " +
				"PID namespace; send the pid of the process as the daemon sees it")
		}
		return c.pid, nil
	}
	if pid == c.pid || pid < 0 {
		return pid, nil
	}
	pc, err := d.auth.creds(c.pid)
	if err != nil || c.alive(c.pid) != nil {
		return pid, nil // the caller is gone, or not known to be the one read: mayAct decides
	}
	self, err := d.auth.self()
	if err == nil && pc.PIDNS != "" && self.PIDNS != "" && pc.PIDNS != self.PIDNS {
		return 0, badRequest("pid %d: you are in another PID namespace (a container) than the daemon, so "+
			"your pids name other processes here; omit pid to register your own process", pid)
	}
	return pid, nil
}

// procAuthorizer reads credentials from procfs at procRoot ("" is /proc).
func procAuthorizer(procRoot string) authorizer {
	return authorizer{
		creds: func(pid int) (numa.ProcCreds, error) { return numa.ReadProcCreds(procRoot, pid) },
		self:  func() (numa.ProcCreds, error) { return numa.ReadProcCreds(procRoot, os.Getpid()) },
	}
}
