package daemon

import (
	"context"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

func TestJain(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, 1}, {[]float64{0, 0}, 1}, {[]float64{0.5, 0.5, 0.5}, 1}, {[]float64{1, 0}, 0.5}, {[]float64{1, 0, 0, 0}, 0.25},
	}
	for _, tt := range tests {
		if got := jain(tt.xs); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("jain(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}

func TestNotifier(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", path)
	n := NewNotifier()
	if !n.Enabled() {
		t.Fatal("notifier not enabled with NOTIFY_SOCKET set")
	}
	for _, msg := range []string{"READY=1", "WATCHDOG=1", "STOPPING=1"} {
		if err := n.Notify(msg); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		k, err := conn.Read(buf)
		if err != nil || string(buf[:k]) != msg {
			t.Fatalf("received %q, %v; want %q", buf[:k], err, msg)
		}
	}
	t.Setenv("WATCHDOG_USEC", "2000000")
	t.Setenv("WATCHDOG_PID", "")
	if got := WatchdogInterval(); got != time.Second {
		t.Errorf("WatchdogInterval = %v, want 1s", got)
	}
	t.Setenv("WATCHDOG_PID", "1")
	if os.Getpid() != 1 && WatchdogInterval() != 0 {
		t.Error("watchdog meant for another pid was honoured")
	}
}

// TestReadyAfterAnnounce: when Ready is closed the daemon has already
// logged that it is ready and what it does on this host, and sent READY=1
// to systemd, so that a waiter on Ready needs no retry.
func TestReadyAfterAnnounce(t *testing.T) {
	skipUnlessRoot(t)
	dir := t.TempDir()
	notify := filepath.Join(dir, "notify.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notify, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("NOTIFY_SOCKET", notify)
	cfg, err := ParseConfig("ready.hcl", []byte(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	logs := &testutil.SyncBuffer{}
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{Socket: filepath.Join(dir, "k.sock"), MetricsAddr: "127.0.0.1:0", Notifier: NewNotifier(),
		Logger: hclog.New(&hclog.LoggerOptions{Name: "kvtier", Output: logs, Level: hclog.Info})})
	if err != nil {
		t.Fatal(err)
	}
	testutil.RunDaemon(t, d, logs)
	got := logs.String() // at once: nothing may be waited for
	st := d.Status()
	want := []string{"kvtier: ready: socket="}
	switch {
	case st.SingleNode:
		want = append(want, "[WARN]  kvtier: one memory node: every block is in the fast tier and nothing moves")
	case !st.Moving:
		want = append(want, "[WARN]  kvtier: kernel tiering is on")
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("log when Ready was closed lacks %q:\n%s", w, got)
		}
	}
	buf := make([]byte, 64)
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := conn.Read(buf); err != nil || string(buf[:n]) != "READY=1" {
		t.Errorf("first sd_notify message = %q, %v; want READY=1", buf[:n], err)
	}
}

// TestRegretEvent: a block demoted (as the feedback of a successful
// demotion records it) and then accessed within the horizon is a regret
// event on the stream and in the metrics.
func TestRegretEvent(t *testing.T) {
	td := startDaemon(t, testConfig)
	ctx := context.Background()
	buf := testutil.AlignedBuffer(1 << 20)
	testutil.Touch(buf)
	reg, err := td.client.Register(ctx, api.RegisterRequest{PID: os.Getpid(), Addr: uint64(testutil.Addr(buf)),
		Length: uint64(len(buf)), BlockSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan api.Event, 16)
	evCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go td.client.Events(evCtx, func(ev api.Event) error {
		if ev.Type == api.EventRegret {
			got <- ev
		}
		return nil
	})
	time.Sleep(100 * time.Millisecond)
	d := td.d
	d.mu.Lock()
	r := d.regions[reg.ID]
	r.markDemoted(3, d.now())
	r.markDemoted(4, d.now()-d.horizon()-policy.Time(time.Millisecond)) // expired: no regret
	d.mu.Unlock()
	if _, err := td.client.Hints(ctx, reg.ID, api.HintsRequest{Blocks: []uint64{3, 4}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Region != reg.ID || ev.Block == nil || *ev.Block != 3 {
			t.Fatalf("regret event = %+v, want block 3 of region %d", ev, reg.ID)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no regret event")
	}
	if v := metric(t, d.MetricsAddr(), "kvtier_regret_events_total"); v != 1 {
		t.Errorf("kvtier_regret_events_total = %v, want 1", v)
	}
}
