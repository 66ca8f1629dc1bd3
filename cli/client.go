package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon/api"
)

// requestTimeout bounds one request to the daemon (the event stream and
// top's refreshes are not bounded by it).
const requestTimeout = 10 * time.Second

// clientFlags are the flags every command that talks to the daemon has.
type clientFlags struct {
	socket string
	asJSON bool
}

// add registers --socket and --json on cmd.
func (f *clientFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.socket, "socket", api.DefaultSocket, "the daemon's API socket")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print JSON")
}

// client returns a client for the configured socket.
func (f *clientFlags) client() *api.Client { return api.NewClient(f.socket) }

// daemonError turns a client error into one that tells the operator what
// to do, carrying the exit code scripts rely on: ExitUnreachable when
// nothing listens on the socket, ExitPermission when the socket refuses
// the caller.
func daemonError(socket string, err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, api.ErrUnreachable):
		why := "no socket at " + socket
		if errors.Is(err, syscall.ECONNREFUSED) {
			why = "nothing listens on " + socket + " (a stale socket)"
		}
		return withCode(ExitUnreachable, fmt.Errorf("the kvtier daemon is not running: %s; "+
			"start it with `sudo systemctl start kvtier` (or run `sudo kvtier daemon`), "+
			"or point --socket at the socket it listens on", why))
	case errors.Is(err, api.ErrPermission):
		return withCode(ExitPermission, fmt.Errorf("permission denied on the daemon socket %s: %s", socket,
			permissionAdvice(socket)))
	}
	var se *api.StatusError
	if errors.As(err, &se) && se.Code == 404 {
		return withCode(ExitError, fmt.Errorf("%s", se.Message))
	}
	return err
}

// permissionAdvice says which group to join to use the socket.
func permissionAdvice(socket string) string {
	fi, err := os.Stat(socket)
	if err != nil {
		// The directory refused us: /run/kvtier is 0750 root:root unless
		// the unit's RuntimeDirectory group is set.
		return "its directory is not searchable by you; run as root, or ask for the socket directory's " +
			"group (RuntimeDirectory in kvtier.service, api.group in kvtier.hcl) and join it"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "run as root or join the socket's group"
	}
	group := strconv.FormatUint(uint64(st.Gid), 10)
	if g, err := user.LookupGroupId(group); err == nil {
		group = g.Name
	}
	if st.Gid == 0 {
		return fmt.Sprintf("the socket belongs to group %q; run as root, or set api.group in kvtier.hcl "+
			"(e.g. group = \"kvtier\"), restart the daemon and join that group", group)
	}
	return fmt.Sprintf("join group %q (`sudo usermod -aG %s $USER`, then log in again) or run as root",
		group, group)
}

// call runs one request with the request timeout and maps its error.
func call[T any](ctx context.Context, c *api.Client, fn func(*api.Client, context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	v, err := fn(c, ctx)
	return v, daemonError(c.Socket(), err)
}
