package daemon

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

func TestHeartbeatStalled(t *testing.T) {
	var h heartbeat
	now := time.Now()
	h.idle(time.Second)
	if _, stuck := h.stalled(now.Add(time.Hour), 0); stuck {
		t.Error("a loop waiting between epochs counts as stalled")
	}
	h.busy(now)
	for _, tc := range []struct {
		after, floor time.Duration
		stuck        bool
	}{
		{3 * time.Second, 0, false},
		{5 * time.Second, 0, true},                 // over watchdogEpochs epochs
		{5 * time.Second, 10 * time.Second, false}, // not over the floor
		{11 * time.Second, 10 * time.Second, true},
	} {
		ran, stuck := h.stalled(now.Add(tc.after), tc.floor)
		if stuck != tc.stuck || ran != tc.after {
			t.Errorf("an epoch of 1s running %v, floor %v: stalled %v, %v; want %v",
				tc.after, tc.floor, ran, stuck, tc.stuck)
		}
	}
	h.idle(time.Second)
	if _, stuck := h.stalled(now.Add(time.Hour), 0); stuck {
		t.Error("the loop is stalled after its epoch ended")
	}
}

// TestWatchdogIndependentOfLock: the watchdog pings while d.mu is held
// and no epoch runs (a registration's step, say), and stops pinging once
// an epoch has run for longer than watchdogEpochs epochs.
func TestWatchdogIndependentOfLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	d := &Daemon{opts: Options{Notifier: Notifier{addr: path}}, log: hclog.NewNullLogger()}
	d.beat.idle(10 * time.Millisecond)
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.watchdog(ctx, 20*time.Millisecond) }()
	defer func() { cancel(); <-done }()
	buf := make([]byte, 64)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if k, err := conn.Read(buf); err != nil || string(buf[:k]) != "WATCHDOG=1" {
		t.Fatalf("no ping while d.mu is held: %q, %v", buf[:k], err)
	}
	d.beat.busy(time.Now().Add(-time.Minute)) // an epoch stuck for a minute
	drainUntil(conn, time.Now().Add(100*time.Millisecond))
	_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if k, err := conn.Read(buf); err == nil {
		t.Errorf("pinged %q while the epoch loop is stalled", buf[:k])
	}
}

// drainUntil reads and drops datagrams until deadline (pings sent
// before the stall was seen).
func drainUntil(conn *net.UnixConn, deadline time.Time) {
	buf := make([]byte, 64)
	_ = conn.SetReadDeadline(deadline)
	for {
		if _, err := conn.Read(buf); err != nil {
			return
		}
	}
}
