package plan

import "github.com/kvtier/kvtier/policy"

// Idle reports whether the block with id is tracked and could be
// untracked losing nothing a plan would use: it is slow and unpinned, has
// no pending move, no source saw it for coldEpochs epochs (nor was it
// tracked more recently), and it was not moved within Cooldown of now (a
// block tracked afresh has no cooldown to keep it from coming straight
// back). A caller that tracks blocks only while it needs them (the
// daemon's regions, see OpenPool) untracks idle ones and tracks them
// again when next sampled.
func (p *Planner) Idle(id policy.BlockID, now policy.Time) bool {
	e, ok := p.lookup(id)
	if !ok || e.fast || e.pending != pendNone || e.b.Meta.Pinned || !p.cold(e) {
		return false
	}
	return !e.moved || now-e.lastMove >= p.cfg.Cooldown
}
