package plan

import (
	"cmp"
	"slices"

	"github.com/kvtier/kvtier/policy"
)

// candidates returns the promotion candidates in rank order.
func (p *Planner) candidates(now policy.Time) []*entry {
	keys := make([]rankKey, 0, len(p.pinnedSlow)+len(p.touched))
	for _, e := range p.pinnedSlow {
		if e.pending == pendNone && !e.fast {
			keys = append(keys, keyOf(e))
		}
	}
	min := p.cfg.promoteMin()
	for _, e := range p.touched {
		if e.gone || e.fast || e.pending != pendNone || e.b.Meta.Pinned {
			continue
		}
		if p.noPromote&(1<<e.b.Meta.Class) != 0 {
			continue
		}
		if e.moved && now-e.lastMove < p.cfg.Cooldown {
			continue
		}
		if !p.reused(e) {
			continue
		}
		p.heatNow(e)
		if e.heat >= min {
			keys = append(keys, keyOf(e))
		}
	}
	slices.SortFunc(keys, compareRank)
	out := make([]*entry, len(keys))
	for i := range keys {
		out[i] = keys[i].e
	}
	return out
}

// rankKey is what ranks a promotion candidate, copied out of its entry
// and block so that the sort reads neither.
type rankKey struct {
	heat  float64
	id    policy.BlockID
	e     *entry
	class uint16 // pinned<<8 | priority: the higher first
}

func keyOf(e *entry) rankKey {
	k := rankKey{heat: e.heat, id: e.b.ID, e: e, class: uint16(e.b.Meta.Priority)}
	if e.b.Meta.Pinned {
		k.class |= 1 << 8
	}
	return k
}

// compareRank orders candidates: pinned first, then higher priority, then
// hotter, then lower ID.
func compareRank(a, b rankKey) int {
	switch {
	case a.class != b.class:
		return cmp.Compare(b.class, a.class)
	case a.heat != b.heat:
		if a.heat > b.heat {
			return -1
		}
		return 1
	default:
		return cmp.Compare(a.id, b.id)
	}
}
