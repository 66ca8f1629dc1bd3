package testutil

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Daemon is what RunDaemon needs of a kvtier daemon (*daemon.Daemon).
type Daemon interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
}

// RunDaemon runs d in the background and returns once it is ready,
// failing t if Run returns first or d is not ready within 10s. The
// returned stop cancels Run and waits for it, failing t unless it returns
// nil within 10s; it runs when t ends, and may be called before (once
// stopped, calls do nothing). logs, when not nil, is shown on failure.
func RunDaemon(t testing.TB, d Daemon, logs fmt.Stringer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	show := func() string {
		if logs == nil {
			return ""
		}
		return "\n" + logs.String()
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("daemon Run returned %v%s", err, show())
				}
			case <-time.After(10 * time.Second):
				t.Errorf("daemon did not stop within 10s%s", show())
			}
		})
	}
	select {
	case <-d.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("daemon Run: %v%s", err, show())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("daemon not ready after 10s%s", show())
	}
	t.Cleanup(stop)
	return stop
}
