package plan

import (
	"math"

	"github.com/kvtier/kvtier/policy"
)

// coldEpochs is how long a block must go unseen by every source, and have
// been tracked, before keepHeadroom may demote it: a block just tracked
// (a new registration, a daemon that restored its regions) has no history
// yet and is not cold, and with any decay, a block read every few epochs
// never is.
const coldEpochs = 8

// coldOnly is the guard of headroom demotions (see take): the victim must
// be cold, whatever its heat.
var coldOnly = math.Inf(-1)

// maxHeadroom bounds Config.Headroom.
const maxHeadroom = 0.5

// keepHeadroom demotes cold blocks, with the migration budget this plan
// has left, until Config.Headroom of the fast tier's capacity is free (the
// plan's own moves counted). The next promotions then go into free room
// at once, each one move instead of a demotion and a promotion in turn,
// which halves the time a new hot set takes to arrive; the demotions that
// refill the room come in later, quieter epochs. Only cold blocks leave
// (no source saw them for coldEpochs epochs), policy order first, every
// tenant's lowest buckets first: a fast tier whose blocks are all in use
// keeps them, and the headroom waits. Quotas are caps, not reservations:
// a tenant under its quota may lose a cold block to the headroom.
func (p *Planner) keepHeadroom(bud *budget, now policy.Time, pl *Plan) {
	c := p.capacity()
	if p.cfg.Headroom <= 0 || c <= 0 || bud.empty() {
		return
	}
	want := int64(p.cfg.Headroom*float64(c)) - (c - p.load())
	if want <= 0 {
		return
	}
	p.evictOthers(nil, want, ReasonHeadroom, bud, now, pl, coldOnly)
}

// cold reports whether no source saw e in the last coldEpochs epochs and
// it was tracked at least that long ago.
func (p *Planner) cold(e *entry) bool {
	last := max(e.trackedAt, e.lastSeen())
	return int64(p.epoch)-int64(last) >= coldEpochs
}
