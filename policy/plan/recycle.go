package plan

// Recycle hands pl back to the planner once the caller is done with it:
// every move reported (Done) or given up, and nothing of it (its slices,
// those Order returned) read any more. The next plan reuses its slices
// instead of allocating new ones, which at millions of blocks are
// megabytes that a new plan would page-fault in, at every plan. Calling
// it is optional; pl must not be used after.
func (p *Planner) Recycle(pl *Plan) {
	if pl != nil {
		p.spare = pl
	}
}

// newPlan returns an empty plan for the next epoch, with the recycled
// plan's slices if there is one.
func (p *Planner) newPlan() *Plan {
	pl := p.spare
	p.spare = nil
	if pl == nil {
		return &Plan{Epoch: p.epoch + 1}
	}
	// Drop the old moves' blocks, so that the spare does not keep them.
	clear(pl.Demote)
	clear(pl.Promote)
	clear(pl.order)
	*pl = Plan{Epoch: p.epoch + 1, Demote: pl.Demote[:0], Promote: pl.Promote[:0],
		Events: pl.Events[:0], order: pl.order[:0]}
	return pl
}
