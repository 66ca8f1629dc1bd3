package plan

// Order returns the plan's moves in the order to execute them: each
// promotion as soon as the demotions before it have freed its room. The
// promotions beyond the demotions' bytes (they fit the fast node's free
// room, or the plan has no victims) go first; then a demotion is followed
// by the promotion it made room for, and demotions beyond the promotions
// (a tier or tenant brought back under budget) come last. Executed in this
// order, a mover cut short by its deadline leaves the plan half done in
// pairs, and the hot blocks reach the fast tier from the first moves on,
// not after every demotion. Demotions keep their order, as promotions do.
func (pl *Plan) Order() []Move {
	out := make([]Move, 0, len(pl.Demote)+len(pl.Promote))
	var credit int64 // bytes freed and not yet taken
	for _, m := range pl.Promote {
		credit += m.Block.Meta.Size
	}
	for _, m := range pl.Demote {
		credit -= m.Block.Meta.Size
	}
	credit = max(credit, 0)
	d, p := 0, 0
	for d < len(pl.Demote) || p < len(pl.Promote) {
		switch {
		case p < len(pl.Promote) && (pl.Promote[p].Block.Meta.Size <= credit || d == len(pl.Demote)):
			credit -= pl.Promote[p].Block.Meta.Size
			out = append(out, pl.Promote[p])
			p++
		default:
			credit += pl.Demote[d].Block.Meta.Size
			out = append(out, pl.Demote[d])
			d++
		}
	}
	return out
}
