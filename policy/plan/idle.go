package plan

import "github.com/kvtier/kvtier/policy"

// Idle reports whether the block with id is tracked and could be
// untracked losing little a plan would use: it is slow and unpinned, has
// no pending move, no source saw it for coldEpochs epochs nor within the
// reuse window (Config.Reuse, whose evidence would go), nor was it
// tracked more recently; its heat has decayed below a hundredth of
// PromoteMin; and it was not moved within Cooldown of now (a block
// tracked afresh has no cooldown to keep it from coming straight back).
// What goes is what its bucket policy keeps of a non-resident block (a
// ghost: ARC's and regret_aware's history; LRU keeps none). A caller that
// tracks blocks only while it needs them (the daemon's regions, see
// OpenPool) untracks idle ones and tracks them again when next sampled.
func (p *Planner) Idle(id policy.BlockID, now policy.Time) bool {
	e, ok := p.lookup(id)
	if !ok || e.fast || e.pending != pendNone || e.b.Meta.Pinned {
		return false
	}
	quiet := int64(max(coldEpochs, p.cfg.Reuse+1))
	if int64(p.epoch)-int64(max(e.trackedAt, e.lastSeen())) < quiet {
		return false
	}
	if p.heatAt(e, p.epoch) >= p.cfg.promoteMin()/100 {
		return false
	}
	return !e.moved || now-e.lastMove >= p.cfg.Cooldown
}
