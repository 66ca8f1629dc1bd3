package plan

import "github.com/kvtier/kvtier/policy"

// coldShare bounds the heat of a block that keepHeadroom may demote: at
// most this share of PromoteMin. With the default decay (0.5 an epoch) a
// block sampled a few times an epoch gets there after 7-10 epochs without
// an access; one sampled in the last few epochs never does.
const coldShare = 1.0 / 64

// maxHeadroom bounds Config.Headroom.
const maxHeadroom = 0.5

// keepHeadroom demotes cold blocks, with the migration budget this plan
// has left, until Config.Headroom of the fast tier's capacity is free (the
// plan's own moves counted). The next promotions then go into free room
// at once, each one move instead of a demotion and a promotion in turn,
// which halves the time a new hot set takes to arrive; the demotions that
// refill the room come in later, quieter epochs. Only blocks with no
// recent evidence leave (heat at most coldShare of PromoteMin), policy
// order first, every tenant's lowest buckets first: a fast tier whose
// blocks are all warm keeps them, and the headroom waits.
func (p *Planner) keepHeadroom(bud *budget, now policy.Time, pl *Plan) {
	c := p.capacity()
	if p.cfg.Headroom <= 0 || c <= 0 || bud.empty() {
		return
	}
	want := int64(p.cfg.Headroom*float64(c)) - (c - p.load())
	if want <= 0 {
		return
	}
	guard := p.cfg.promoteMin() * (1 + coldShare)
	p.evictOthers(nil, want, ReasonHeadroom, bud, now, pl, guard)
}
