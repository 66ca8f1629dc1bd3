package daemon

import (
	"sync"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

// eventBuffer is how many events a subscriber may fall behind before
// events to it are dropped (and counted).
const eventBuffer = 1024

// hub fans events out to event-stream subscribers. Publishing never
// blocks: a subscriber that falls behind loses events.
type hub struct {
	mu      sync.Mutex
	seq     uint64
	subs    map[chan api.Event]func(api.Event) bool // a subscriber's filter; nil passes all
	dropped func()                                  // called once per event not delivered
}

func newHub(dropped func()) *hub {
	return &hub{subs: map[chan api.Event]func(api.Event) bool{}, dropped: dropped}
}

// publish stamps ev with a sequence number and the time and sends it to
// every subscriber.
func (h *hub) publish(ev api.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	ev.Seq = h.seq
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	for ch, pass := range h.subs {
		if pass != nil && !pass(ev) {
			continue
		}
		select {
		case ch <- ev:
		default:
			if h.dropped != nil {
				h.dropped()
			}
		}
	}
}

// subscribe returns a channel of the events pass lets through (nil: all)
// and a function that ends the subscription (and closes the channel).
// pass runs while events are published, under the daemon's lock: it must
// not take it.
func (h *hub) subscribe(pass func(api.Event) bool) (<-chan api.Event, func()) {
	ch := make(chan api.Event, eventBuffer)
	h.mu.Lock()
	h.subs[ch] = pass
	h.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			// closeAll may have ended the subscription (and closed ch)
			// already.
			if _, ok := h.subs[ch]; ok {
				delete(h.subs, ch)
				close(ch)
			}
		})
	}
}

// closeAll ends every subscription (the daemon is stopping).
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}
