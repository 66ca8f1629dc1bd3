package plan

import "github.com/kvtier/kvtier/policy"

// Windows of victims fetched ahead (see window): the first is small, as
// take often stops after a few victims (the guard, the cooldown), and
// each next one twice the last, up to maxWindow.
const (
	minWindow = 4
	maxWindow = 256
)

// warmBatch is how many sampled entries candidates fetches ahead
// (warmEntries): their lines fit the L1 cache.
const warmBatch = 64

// window fetches ahead what take reads of a policy's next victims: their
// blocks, index slots and entries. Taken one by one, each victim's block,
// then its slot, then its entry is a cache miss that waits for the one
// before (at 10M blocks, about a microsecond and a half a victim); taken
// a window at a time in three passes, the misses of a pass overlap. A
// window is only a hint (policy.Lookahead): take decides with Victim as
// before, so plans do not change.
//
// A policy that keeps the planner's slot of each block (policy.Tagged)
// gives the victims' slots instead: the window reads their entries, and
// take finds a victim's entry without the ID index and needs nothing of
// its block (the entry holds its size, the policy evicts it untouched).
type window struct {
	la   policy.Lookahead // nil: the policy cannot list its next victims
	tg   policy.Tagged    // nil: the policy does not keep the slots
	left int              // victims of the last window not yet taken
	size int              // the next window's size
}

// lists reports whether the window's policy lists its next victims (a
// window of a policy that does not is never fetched).
func (w *window) lists() bool { return w.la != nil || w.tg != nil }

// windowOf returns a window on pol's victims.
func windowOf(pol policy.Policy) window {
	la, _ := pol.(policy.Lookahead)
	tg, _ := pol.(policy.Tagged)
	return window{la: la, tg: tg, size: minWindow}
}

// victim returns pol's next victim and the entry of its ID or, if pol
// keeps the slots, of its slot (nil for none; take checks that the entry
// is the victim's).
func (w *window) victim(p *Planner, pol policy.Policy, now policy.Time) (*policy.Block, *entry, bool) {
	if w.tg != nil {
		v, slot, ok := w.tg.VictimTagged(now)
		if !ok || slot >= p.ents.used {
			return v, nil, ok
		}
		return v, p.ents.at(slot), true
	}
	v, ok := pol.Victim(now)
	if !ok {
		return nil, nil, false
	}
	e, _ := p.lookup(v.ID)
	return v, e, true
}

// evict evicts v, pol's next victim (the one victim returned), without
// touching the block if pol keeps the slots (policy.Tagged): at 10M
// blocks, the scattered victims' blocks cost a plan shedding 100K of them
// 40% of its time, though warm fetched them ahead.
func (w *window) evict(pol policy.Policy, v *policy.Block, now policy.Time) {
	if w.tg != nil {
		w.tg.EvictTagged(now)
		return
	}
	pol.Evict(v, now)
}

// fetch fetches the next window once the last one is used up (take
// counts the victims taken in left): at most want victims (what take
// expects to demote still), so that a take that stops soon fetches
// little.
func (w *window) fetch(p *Planner, want int64) {
	k := int(max(min(int64(w.size), want), 1))
	switch {
	case w.tg != nil:
		p.aheadSlots = w.tg.AheadTags(p.aheadSlots[:0], k)
		p.warmSlots(p.aheadSlots)
		w.left = len(p.aheadSlots)
	case w.la != nil:
		p.ahead = w.la.Ahead(p.ahead[:0], k)
		p.warm(p.ahead)
		w.left = len(p.ahead)
	default:
		return
	}
	w.size = min(2*w.size, maxWindow)
}

// victimsFor estimates the victims that free bytes within bud, from the
// size of the last victim (last; 0 before the first): every one when
// nothing is known.
func victimsFor(bytes, last int64, bud *budget) int64 {
	n := int64(maxWindow)
	if last > 0 {
		n = (bytes + last - 1) / last
	}
	if bud.limN {
		n = min(n, bud.blocks)
	}
	return n
}

// warm reads the blocks, then their slots, then their entries, each pass
// over the whole of bs, so that its cache misses overlap. It keeps what
// it read in p.warmed only so that the reads are not optimized away.
func (p *Planner) warm(bs []*policy.Block) {
	ids := p.aheadIDs[:0]
	var sum int64
	for _, b := range bs {
		// ID and Next are the first and the last exported fields: with
		// them, the block's lines are fetched, the policy's slot too.
		ids = append(ids, b.ID)
		sum += b.Next
	}
	slots := p.aheadSlots[:0]
	for _, id := range ids {
		if s, ok := p.ids.get(id); ok {
			slots = append(slots, s)
		}
	}
	for _, s := range slots {
		// An entry spans two lines: b is in the first, admitted in the
		// last.
		if e := p.ents.at(s); e.b == nil || !e.admitted {
			sum++
		}
	}
	p.aheadIDs, p.aheadSlots, p.warmed = ids, slots, sum
	clear(p.ahead) // no reference to the blocks outlives the window
}

// warmSlots reads the entries in slots, as warm does the blocks: take
// reads nothing of a tagged victim's block.
func (p *Planner) warmSlots(slots []uint32) {
	var sum int64
	for _, s := range slots {
		if s >= p.ents.used {
			continue
		}
		// An entry spans two lines: b is in the first, admitted in the
		// last.
		if e := p.ents.at(s); e.b != nil && e.admitted {
			sum++
		}
	}
	p.warmed = sum
}

// warmEntries reads the entries of ts, so that their cache misses
// overlap (candidates then finds them cached). Like warm, it keeps what
// it read in p.warmed.
func (p *Planner) warmEntries(ts []touch) {
	var sum int64
	for _, t := range ts {
		e := t.e
		// An entry spans two lines: b is in the first, meta in the last.
		if e.b == nil || e.pinned() {
			sum++
		}
	}
	p.warmed = sum
}
