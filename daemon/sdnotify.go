package daemon

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Notifier sends sd_notify(3) messages to systemd over $NOTIFY_SOCKET. The
// zero value (no socket) does nothing.
type Notifier struct {
	addr string
}

// NewNotifier reads $NOTIFY_SOCKET. An abstract socket ("@name") is
// supported.
func NewNotifier() Notifier {
	return Notifier{addr: os.Getenv("NOTIFY_SOCKET")}
}

// Enabled reports whether systemd listens.
func (n Notifier) Enabled() bool { return n.addr != "" }

// Notify sends state such as "READY=1" or "STOPPING=1".
func (n Notifier) Notify(state string) error {
	if n.addr == "" {
		return nil
	}
	addr := n.addr
	if strings.HasPrefix(addr, "@") {
		addr = "\x00" + addr[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sd_notify %q: %w", state, err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sd_notify %q: %w", state, err)
	}
	return nil
}

// WatchdogInterval returns half of $WATCHDOG_USEC when the watchdog is on
// for this process ($WATCHDOG_PID unset or ours), else 0.
func WatchdogInterval() time.Duration {
	if p := os.Getenv("WATCHDOG_PID"); p != "" && p != strconv.Itoa(os.Getpid()) {
		return 0
	}
	us, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || us <= 0 {
		return 0
	}
	return time.Duration(us) * time.Microsecond / 2
}
