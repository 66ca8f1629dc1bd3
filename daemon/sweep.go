package daemon

import (
	"slices"

	"github.com/kvtier/kvtier/policy"
)

// Sweeping idle blocks. A block materialised because it was sampled,
// hinted or demoted (blocks.go) keeps its policy.Block and planner entry,
// about 150 bytes, while it is tracked; over hours every block of a region
// would have them. Each epoch sweepLocked walks on through the regions'
// blocks from a cursor and gives back the state of those the planner finds
// idle (plan.Planner.Idle: slow, unpinned, no pending move, unseen for 8
// epochs, out of their cooldown): they are untracked and dematerialised,
// back to the bit of an untouched block, and are tracked afresh when
// next sampled. Fast blocks keep their state (their order in the bucket
// policies is what demotion goes by). What an idle block loses is what
// nothing uses any more: its decayed heat and its sight windows.

// sweepSlots bounds the blocks an epoch's sweep looks at, and sweepChecks
// the materialised ones among them it asks the planner about: at 10M
// blocks a region's blocks are walked every few epochs, faster than a 1%
// sample and a 1% move budget materialise them.
const (
	sweepSlots  = 1 << 22
	sweepChecks = 1 << 18
)

// sweepCursor is where the next sweep starts.
type sweepCursor struct {
	region uint64
	block  int
}

// sweepLocked dematerialises the idle blocks among the next sweepSlots
// blocks from the cursor (at most sweepChecks looked up) and returns how
// many it dematerialised.
func (d *Daemon) sweepLocked(now policy.Time) int {
	for _, r := range d.regions {
		r.blocks.recycle() // the slots dropped by the last sweep
	}
	ids := d.sortedRegionIDs()
	start, _ := slices.BinarySearch(ids, d.sweep.region)
	slots, checks, freed := sweepSlots, sweepChecks, 0
	for k := 0; k < len(ids) && slots > 0 && checks > 0; k++ {
		r := d.regions[ids[(start+k)%len(ids)]]
		if r.adding {
			continue
		}
		first := 0
		if r.id == d.sweep.region {
			first = d.sweep.block
		}
		last := min(r.blocks.len(), first+slots)
		end, n, c := d.sweepRegion(r, first, last, checks, now)
		freed += n
		slots -= end - first
		checks -= c
		d.sweep = sweepCursor{region: r.id, block: end}
		if end == r.blocks.len() {
			d.sweep = sweepCursor{region: r.id + 1}
		}
	}
	return freed
}

// sweepRegion dematerialises the idle blocks of r among [first, last),
// stopping after checks lookups, and forgets their demotions older than
// the regret horizon. It returns where it stopped, how many it
// dematerialised and how many it looked up.
func (d *Daemon) sweepRegion(r *region, first, last, checks int, now policy.Time) (end, freed, looked int) {
	i, h := first, d.horizon()
	for i < last && looked < checks {
		// A chunk of the slot directory at a time: one without a
		// materialised block has nothing to sweep but demotion stamps,
		// which are expired a chunk's run at a time.
		c, next := r.blocks.slots[i>>chunkShift], min((i|chunkMask)+1, last)
		start := i
		if c == nil {
			i = next
		}
		for ; i < next && looked < checks; i++ {
			if c[i&chunkMask] == 0 || r.fast.get(i) {
				continue
			}
			looked++
			if d.sweepBlock(r, i, now) {
				freed++
			}
		}
		r.expireDemotedRange(start, i, now, h) // the blocks passed
	}
	return i, freed, looked
}

// sweepBlock dematerialises block i of r, materialised and slow, if the
// planner finds it idle, and reports whether it did.
func (d *Daemon) sweepBlock(r *region, i int, now policy.Time) bool {
	b := r.blocks.get(i)
	if !d.planner.Idle(b.ID, now) {
		return false
	}
	if b.Meta.Class == policy.ClassThinkComplete && r.class != policy.ClassThinkComplete {
		r.markThinkDone(i) // the class it takes when materialised again
	}
	if err := d.planner.Untrack(b.ID); err != nil {
		return false
	}
	r.blocks.drop(i)
	return true
}

// sortedRegionIDs returns the IDs of d.regions, adding ones included, in
// order, for the cursors of the sweep and the reconcile passes. The slice
// is scratch of the daemon's, valid until the next call: sorting a few
// thousand IDs an epoch costs microseconds, less than keeping a cache
// right across every insert and drop.
func (d *Daemon) sortedRegionIDs() []uint64 {
	d.regionIDs = d.regionIDs[:0]
	for id := range d.regions {
		d.regionIDs = append(d.regionIDs, id)
	}
	slices.Sort(d.regionIDs)
	return d.regionIDs
}
