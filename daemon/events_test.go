package daemon

import (
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
)

// TestHubCancelAfterCloseAll: an event stream still being served when
// the daemon stops (API shutdown gives up after 3 s on a client that does
// not read) ends its subscription after closeAll closed the channel; that
// must not close it again (a panic that crashed the stopping daemon).
func TestHubCancelAfterCloseAll(t *testing.T) {
	h := newHub(nil)
	ch, cancel := h.subscribe(nil)
	h.publish(api.Event{Type: api.EventConfigReloaded})
	h.closeAll()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("cancel after closeAll panicked: %v", p)
		}
	}()
	cancel()
	cancel()
	n := 0
	for range ch {
		n++
	}
	if n != 1 {
		t.Errorf("%d events buffered before close, want 1", n)
	}
	h.publish(api.Event{Type: api.EventConfigReloaded}) // no subscriber left
	if len(h.subs) != 0 {
		t.Errorf("%d subscribers after closeAll", len(h.subs))
	}
}
