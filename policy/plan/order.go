package plan

// Order returns the plan's moves in the order to execute them. First the
// demotions that bring an over-budget tier or tenant back under budget;
// then the promotions beyond the room the victims make (they fit the fast
// node's free room, or the headroom); then each victim followed by the
// promotion it made room for; last the demotions that refill the headroom
// (ReasonHeadroom). Executed in this order, a mover cut short by its
// deadline leaves the budget restored first and the rest done in pairs,
// and the hot blocks reach the fast tier from the first moves on, not
// after every demotion. Demotions keep their order, as promotions do.
//
// The slice is the plan's: a second call refills the same one, and
// Planner.Recycle hands it to a later plan.
func (pl *Plan) Order() []Move {
	out := pl.order[:0]
	if n := len(pl.Demote) + len(pl.Promote); n > cap(out) {
		out = make([]Move, 0, n)
	}
	out = append(out, pl.Demote[:pl.shed]...)
	victims := pl.Demote[pl.shed:]
	h := len(victims)
	for h > 0 && victims[h-1].Reason == ReasonHeadroom {
		h--
	}
	out = pair(out, victims[:h], pl.Promote)
	pl.order = append(out, victims[h:]...)
	return pl.order
}

// pair appends promotions interleaved with the victims that make their
// room: the promotions the victims' bytes do not cover first, then each
// promotion as soon as the victims before it have freed its size.
func pair(out, victims, promote []Move) []Move {
	var credit int64 // bytes freed and not yet taken
	for _, m := range promote {
		credit += m.Block.Meta.Size
	}
	for _, m := range victims {
		credit -= m.Block.Meta.Size
	}
	credit = max(credit, 0)
	d, p := 0, 0
	for d < len(victims) || p < len(promote) {
		if p < len(promote) && (promote[p].Block.Meta.Size <= credit || d == len(victims)) {
			credit -= promote[p].Block.Meta.Size
			out = append(out, promote[p])
			p++
			continue
		}
		credit += victims[d].Block.Meta.Size
		out = append(out, victims[d])
		d++
	}
	return out
}
