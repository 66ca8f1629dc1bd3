package plan

import (
	"cmp"
	"slices"

	"github.com/kvtier/kvtier/policy"
)

// cand is a promotion candidate, copied out of its entry and block as
// the candidates are found, so that the plan reads them in rank order
// without visiting the entries again (at 10M blocks, every visit is a
// cache miss).
type cand struct {
	e       *entry
	b       *policy.Block
	ten     *tenant
	size    int64
	heat    float64
	pinned  bool
	promote bool // selected and committed: a promotion of this plan
}

// candidates returns the promotion candidates in rank order.
func (p *Planner) candidates(now policy.Time) []cand {
	found := make([]cand, 0, len(p.pinnedSlow)+len(p.touched))
	for _, e := range p.pinnedSlow {
		if e.pending == pendNone && !e.fast {
			found = append(found, candOf(e))
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
			found = append(found, candOf(e))
		}
	}
	keys := make([]rankKey, len(found))
	for i := range found {
		c := &found[i]
		keys[i] = rankKey{heat: c.heat, id: c.b.ID, i: uint32(i), class: uint16(c.b.Meta.Priority)}
		if c.pinned {
			keys[i].class |= 1 << 8
		}
	}
	slices.SortFunc(keys, compareRank)
	out := make([]cand, len(keys))
	for i, k := range keys {
		out[i] = found[k.i]
	}
	return out
}

func candOf(e *entry) cand {
	return cand{e: e, b: e.b, ten: e.ten, size: e.b.Meta.Size, heat: e.heat, pinned: e.b.Meta.Pinned}
}

// rankKey is what ranks candidate i, small for the sort.
type rankKey struct {
	heat  float64
	id    policy.BlockID
	i     uint32
	class uint16 // pinned<<8 | priority: the higher first
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
