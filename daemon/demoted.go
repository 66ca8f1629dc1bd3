package daemon

import (
	"time"

	"github.com/kvtier/kvtier/policy"
)

// Demotions remembered for regret (a demoted block read again within the
// regret horizon). Each region keeps, per block, when it was last demoted:
// milliseconds since the daemon started, modulo 2^32 (0: not demoted or
// forgotten), in a slice allocated at its first demotion. That costs 4
// bytes a block of a region that has demotions, where a map by block ID
// cost about 24 bytes a demotion held (23.6 measured for 3.2M entries of a
// map[uint64]int64: the demotions within the 32-epoch horizon at 10M
// blocks and a 1% move budget) and a walk of the whole map every epoch to
// expire them. Ages are taken modulo 2^32 ms (49.7 days), so the
// sweep (sweep.go) clears the expired stamps as it passes, long before
// one could read as recent again.

// demoteStamp is now as a demotion stamp: milliseconds plus one, modulo
// 2^32, never 0 (the one time in 2^32 ms it would be, it is 1).
func demoteStamp(now policy.Time) uint32 {
	ms := int64(now) / int64(time.Millisecond)
	if now < 0 && int64(now)%int64(time.Millisecond) != 0 {
		ms-- // rounded down, as for positive times
	}
	return max(uint32(ms)+1, 1)
}

// markDemoted records that block i was demoted at now.
func (r *region) markDemoted(i int, now policy.Time) {
	if r.demotedAt == nil {
		r.demotedAt = make([]uint32, r.blocks.len())
	}
	r.demotedAt[i] = demoteStamp(now)
}

// clearDemoted forgets block i's demotion (it was promoted).
func (r *region) clearDemoted(i int) {
	if r.demotedAt != nil {
		r.demotedAt[i] = 0
	}
}

// takeDemoted forgets block i's demotion and reports whether it was
// within horizon of now.
func (r *region) takeDemoted(i int, now, horizon policy.Time) bool {
	if r.demotedAt == nil || r.demotedAt[i] == 0 {
		return false
	}
	within := demotedWithin(r.demotedAt[i], now, horizon)
	r.demotedAt[i] = 0
	return within
}

// expireDemotedRange forgets the demotions of blocks [lo, hi) older than
// horizon (demotedWithin, with now's stamp computed once for the range:
// the sweep passes millions of blocks an epoch).
func (r *region) expireDemotedRange(lo, hi int, now, horizon policy.Time) {
	if r.demotedAt == nil {
		return
	}
	cur, limit := demoteStamp(now), int64(horizon)/int64(time.Millisecond)
	stamps := r.demotedAt[lo:hi]
	for k, t := range stamps {
		if t != 0 && int64(cur-t) > limit {
			stamps[k] = 0
		}
	}
}

// demotedWithin reports whether a demotion stamped t is within horizon of
// now (ages modulo 2^32 ms).
func demotedWithin(t uint32, now, horizon policy.Time) bool {
	age := demoteStamp(now) - t
	return int64(age) <= int64(horizon)/int64(time.Millisecond)
}
