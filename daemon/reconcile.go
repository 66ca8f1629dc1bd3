package daemon

import (
	"slices"

	"github.com/kvtier/kvtier/policy"
)

// Placement reconcile: the daemon's view of where blocks are changes only
// through its own moves, but others move pages too (another tool, a
// migrate_pages(2), the kernel). Every planner.reconcile_epochs epochs a
// pass reads where the next planner.reconcile_pages pages of the tracked
// regions are (move_pages queries, region by region, going on where the
// last pass stopped; a sample of each block's pages, see reconcileSample)
// and corrects the planner: a block found in the other
// tier is accounted there, and a pinned block found slow is promoted by
// the next plan. Blocks with a planned move are skipped (their outcome
// says where they are), and blocks without a present page are left as
// they are. A block split across the tiers counts fast, as at
// registration, unless it is pinned: then it counts slow, so the plan
// brings its stray pages back.

// reconcileSample is the pages a pass reads of a block of a region that
// pins nothing: spread over the block, first and last page included. The
// kernel and other tools move a block's pages together (a block is read
// whole, so it is hot or cold whole) or in runs, which a sample sees; the
// mover queries every page of a block before it moves it, so a page a
// sample misses is never charged wrongly. Reading every page cost a
// 512-page move_pages query per 2 MiB block; in a head-to-head run under
// TCG, passes 4 times less often cut the daemon's system time from 15.2 s
// to 10.7 s.
const reconcileSample = 8

// reconcilePerBlock is the pages a pass reads of each block of r: every
// page where r pins blocks (a pinned block's stray page is brought back),
// else reconcileSample.
func reconcilePerBlock(r *region) int {
	if len(r.pinned) > 0 {
		return 0
	}
	return reconcileSample
}

// reconcileCursor is where the next pass starts.
type reconcileCursor struct {
	region uint64
	block  int
}

// maxQuiet bounds the reconcile back-off: after passes that corrected
// nothing, passes come up to 1<<maxQuiet times less often than
// planner.reconcile_epochs says.
const maxQuiet = 3

// reconcileLocked runs a reconcile pass if this epoch is due one. Passes
// cost move_pages queries of every page they read; while nobody else
// moves pages they find nothing, so each pass that corrected nothing
// doubles the interval to the next (up to 1<<maxQuiet times
// reconcile_epochs), and a pass that corrected a block brings it back.
// While a region pins blocks the interval stays as configured: a pinned
// block moved away is brought back within reconcile_epochs.
func (d *Daemon) reconcileLocked(now policy.Time) {
	every := d.cfg.Planner.ReconcileEpochs
	epoch := d.planner.Epoch()
	if every <= 0 || d.slowNode < 0 || epoch < d.recNext {
		return
	}
	if d.reconcilePass(now, d.cfg.Planner.ReconcilePages) > 0 || d.pinsLocked() {
		d.recQuiet = 0
	} else {
		d.recQuiet = min(d.recQuiet+1, maxQuiet)
	}
	d.recNext = epoch + uint64(every)<<d.recQuiet
}

// pinsLocked reports whether a tracked region pins blocks.
func (d *Daemon) pinsLocked() bool {
	for _, r := range d.regions {
		if len(r.pinned) > 0 {
			return true
		}
	}
	return false
}

// reconcilePass reads the placement of up to budget pages of blocks,
// starting at the cursor, and corrects the blocks that moved. It returns
// the number of blocks corrected.
func (d *Daemon) reconcilePass(now policy.Time, budget int) int {
	ids := d.sortedRegionIDs()
	if len(ids) == 0 {
		return 0
	}
	start, _ := slices.BinarySearch(ids, d.recCursor.region)
	fixed := 0
	for k := range ids {
		r := d.regions[ids[(start+k)%len(ids)]]
		first := 0
		if k == 0 && r.id == d.recCursor.region {
			first = d.recCursor.block
		}
		if first >= r.blocks.len() {
			first = 0
		}
		// Whole blocks, at least one, up to the budget.
		per := queriedPerBlock(r.blockSize, reconcilePerBlock(r))
		n := max(budget/per, 1)
		last := min(first+n, r.blocks.len())
		fixed += d.reconcileBlocks(r, first, last, now)
		budget -= (last - first) * per
		d.recCursor = reconcileCursor{region: r.id, block: last}
		if last == r.blocks.len() {
			d.recCursor = reconcileCursor{region: r.id + 1}
		}
		if budget <= 0 {
			break
		}
	}
	if fixed > 0 {
		d.metrics.reconciled.Add(float64(fixed))
	}
	return fixed
}

// reconcileBlocks reads blocks [first, last) of r and corrects the tier
// of those found elsewhere.
func (d *Daemon) reconcileBlocks(r *region, first, last int, now policy.Time) int {
	addr := r.blockAddr(first)
	length := r.blockAddr(last-1) + r.blockLen(last-1) - addr
	pl, err := readPlacement(r.proc, d.topo, addr, length, r.blockSize, reconcilePerBlock(r))
	if err != nil {
		// A gone process is reaped next epoch; anything else is retried
		// on the next pass.
		d.log.Named("reconcile").Debug("cannot read placement", "region", r.id, "pid", r.pid(), "error", err)
		return 0
	}
	var toFast, toSlow []int
	for j, p := range pl {
		i := first + j
		if !p.fast && !p.slow {
			continue
		}
		// Split across the tiers: fast, unless pinned (to be brought
		// back whole).
		fast := p.fast && !(p.slow && r.pinnedAt(i))
		if fast == r.fast.get(i) {
			continue
		}
		if !d.setTierLocked(r, i, fast, now) {
			continue
		}
		if fast {
			toFast = append(toFast, i)
		} else {
			toSlow = append(toSlow, i)
		}
	}
	if len(toFast)+len(toSlow) > 0 {
		d.log.Named("reconcile").Info("blocks found in another tier than planned; corrected",
			"region", r.id, "pid", r.pid(), "tenant", r.tenant, "now_fast", toFast, "now_slow", toSlow)
	}
	return len(toFast) + len(toSlow)
}

// setTierLocked records that block i of r was found in the other tier,
// fast if fast, and reports whether the planner took it. A block not
// materialised found slow leaves the pool; one found fast is materialised
// (tracked fast, not pooled: a pool's blocks only leave it).
func (d *Daemon) setTierLocked(r *region, i int, fast bool, now policy.Time) bool {
	if r.blocks.get(i) == nil {
		if r.adding && i >= r.tracked {
			return false
		}
		if r.pooled(i) {
			if fast {
				return false
			}
			d.planner.TakeFromPool(r.pool, int64(r.blockLen(i)))
			r.fast.set(i, false)
			return true
		}
		r.fast.set(i, fast)
		// Slow until now, so in no pool (region.pooled would say it is
		// once r.fast's bit is set).
		if _, err := d.materialiseFrom(r, i, false, now); err != nil {
			r.fast.set(i, !fast)
			return false
		}
		return true
	}
	changed, err := d.planner.SetTier(r.idOf(i), fast, now)
	if err != nil || !changed {
		return false
	}
	r.fast.set(i, fast)
	return true
}
