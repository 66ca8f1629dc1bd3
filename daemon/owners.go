package daemon

import (
	"sync"

	"github.com/kvtier/kvtier/daemon/api"
)

// ownerIndex maps region IDs to the uid that owns them. It has a lock of
// its own so that event filters, which run under the daemon's lock, may
// read it. A region's entry outlives it until its last event is published.
type ownerIndex struct {
	mu sync.Mutex
	m  map[uint64]uint32
}

func newOwnerIndex() *ownerIndex { return &ownerIndex{m: map[uint64]uint32{}} }

func (o *ownerIndex) set(id uint64, uid uint32) {
	o.mu.Lock()
	o.m[id] = uid
	o.mu.Unlock()
}

func (o *ownerIndex) remove(id uint64) {
	o.mu.Lock()
	delete(o.m, id)
	o.mu.Unlock()
}

func (o *ownerIndex) owner(id uint64) (uint32, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	uid, ok := o.m[id]
	return uid, ok
}

// eventFilter is what caller c may see of the event stream: root sees
// everything; anyone else sees events about the host (no region) and
// about its own regions.
func (o *ownerIndex) eventFilter(c caller) func(api.Event) bool {
	if c.root() {
		return nil
	}
	return func(ev api.Event) bool {
		if ev.Region == 0 {
			return ev.Type != api.EventCrossTenantEvict
		}
		uid, ok := o.owner(ev.Region)
		return ok && uid == c.uid
	}
}
