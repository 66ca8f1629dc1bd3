package daemon

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// Registration in steps. Handing a region's blocks to the planner
// (plan.Planner.Track, one call a block) takes seconds for millions of
// blocks, and the planner is guarded by d.mu: tracked in one hold of the
// lock, an 8 GiB region of 4 KiB blocks stalled the API, the epoch loop
// and the watchdog for as long. addRegionAs therefore:
//
//  1. checks the request under the lock (admitLocked) and takes an ID;
//  2. builds the region's blocks and their metadata without the lock
//     (buildRegion: the region is still private to the request);
//  3. under the lock checks again, counts the tenant and puts the region
//     in d.regions marked adding, no block tracked (insertLocked);
//  4. tracks its blocks in steps that hold the lock at most trackStep
//     each, releasing it for trackPause between steps (trackSteps);
//  5. in the last step's hold, clears adding, has the samplers watch the
//     region, publishes it and saves the state (publishLocked).
//
// While adding, the region is in d.regions, so the epoch loop and later
// registrations (limits, overlaps) see it, and it is consistent at every
// step: blocks [0, r.tracked) are tracked by the planner and the others
// are not. The planner plans only tracked blocks, so the mover moves only
// those, and the loop's other planner calls about a block (Observe,
// SetTier) fail for an untracked one and are ignored, as for a block freed
// between a plan and its outcome. No sampler watches the region yet, so
// no counts arrive for it. The API does not show it (regionFor,
// regionViews) and the state file does not hold it until it is complete:
// its caller learns its ID from the 201. A region dropped while adding
// (its process exited, the daemon stops) is dropped as any other
// (dropRegionLocked, silently), and the registration answers an error.

// trackStep bounds how long one step of a registration holds d.mu.
const trackStep = 2 * time.Millisecond

// trackPause is how long a registration leaves d.mu and the CPU to
// others between two steps: the lock's waiters (API calls, the epoch
// loop) and the garbage collector, which the planner's allocations keep
// busy, get them even on a loaded host where a mere yield hands both
// straight back to the registration. It costs a fifth of the
// registration's speed.
const trackPause = trackStep / 4

// trackCheck is how many units (a pinned block, a run pooled) a step
// tracks between looks at the clock (a look costs tens of ns, a pinned
// block about a microsecond).
const trackCheck = 32

// admitLocked checks that the daemon runs, that one more region of s's
// process is within the limits and that s overlaps no region.
func (d *Daemon) admitLocked(s *regionSpec) error {
	if d.closed {
		return errStopping
	}
	if err := d.checkRegionLimitsLocked(s.pid); err != nil {
		return err
	}
	for _, r := range d.regions {
		if r.overlaps(s.pid, s.addr, s.length) {
			return &reqError{http.StatusConflict,
				fmt.Sprintf("pid %d range %#x-%#x overlaps region %d", s.pid, s.addr, s.addr+s.length, r.id)}
		}
	}
	return nil
}

// reserveID checks s (admitLocked) and returns a new region ID: s.id for a
// restored registration if no region has it and no ID above restoreFloor
// was handed out (restoreState raised nextID past the saved IDs).
func (d *Daemon) reserveID(s *regionSpec) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.admitLocked(s); err != nil {
		return 0, err
	}
	if _, taken := d.regions[s.id]; s.id != 0 && !taken && s.id > d.restoreFloor {
		d.nextID = max(d.nextID, s.id)
		return s.id, nil
	}
	d.nextID++
	return d.nextID, nil
}

// buildRegion builds region id of s on proc: its blocks' tiers (as read
// at registration) and the metadata they share. It touches nothing of the
// daemon's.
func buildRegion(id uint64, s *regionSpec, proc *numa.Process) (*region, error) {
	r := newRegion(id, proc, s.addr, s.length, s.blockSz)
	if s.fast != nil {
		r.fast.load(s.fast[:min(len(s.fast), r.blocks.len())])
	}
	r.class, r.priority, r.refcount, r.name, r.source = s.class, s.priority, s.refcount, s.name, s.source
	if err := r.checkRanges("pinned", s.pinned); err != nil {
		return nil, badRequest("%v", err)
	}
	r.pinned = append([]api.Range(nil), s.pinned...)
	r.owner, r.uid = s.owner, s.uid
	r.tenant = s.tenant
	return r, nil
}

// insertLocked counts r's tenant and puts r in d.regions, adding, none of
// its blocks tracked.
func (d *Daemon) insertLocked(r *region) error {
	idx, err := d.acquireTenant(r.tenant)
	if err != nil {
		return err
	}
	r.tenantIdx = idx
	r.adding, r.tracked = true, 0
	// Its blocks' IDs are the region's ID and their indexes: a directory
	// of 4 bytes a block finds those tracked faster than a map would,
	// however sparse they are (blocks.go materialises them as needed).
	d.planner.Dense(uint32(r.id), uint32(r.blocks.len()))
	d.regions[r.id] = r
	return nil
}

// trackStepLocked hands blocks of r to the planner from r.tracked on,
// for about trackStep at most: those that need a policy.Block at once
// (pinned) are tracked one by one, and the fast ones of each run between
// two pinned ranges are pooled in one planner call (blocks.go), so a
// region that pins nothing is pooled in one step however many blocks it
// has.
func (d *Daemon) trackStepLocked(r *region) error {
	return d.trackUntilLocked(r, time.Now().Add(trackStep))
}

// trackUntilLocked is trackStepLocked until deadline, looked at every
// trackCheck units of work: a pinned block or a run pooled (a step always
// tracks something). Counting units, not r.tracked, keeps the look however
// the runs fall between pins.
func (d *Daemon) trackUntilLocked(r *region, deadline time.Time) error {
	now, units := d.now(), 0
	for ; r.tracked < r.blocks.len(); units++ {
		if units > 0 && units%trackCheck == 0 && time.Now().After(deadline) {
			break
		}
		i := r.tracked
		if !r.pinnedAt(i) {
			end := r.unpinnedEnd(i)
			if err := d.poolRunLocked(r, i, end); err != nil {
				return err
			}
			r.tracked = end
			continue
		}
		if _, err := d.materialiseLocked(r, i, now); err != nil {
			return err
		}
		r.tracked++
	}
	return nil
}

// unpinnedEnd is the first pinned block of r after block i, which is not
// pinned, or r's block count if none is. Pinned ranges are block aligned
// (checkRanges), so a range that starts at or before i ends before it.
func (r *region) unpinnedEnd(i int) int {
	end := r.blocks.len()
	for _, p := range r.pinned {
		if first := int(p.Offset / r.blockSize); first > i {
			end = min(end, first)
		}
	}
	return end
}

// trackSteps tracks the blocks of r, inserted adding, in steps, pausing
// without d.mu between them (trackPause). It returns with d.mu held when every block is
// tracked, and without it on error: r was dropped meanwhile (its process
// exited, the daemon stops), or the planner refused a block (r is then
// dropped).
func (d *Daemon) trackSteps(r *region) error {
	for {
		d.mu.Lock()
		if d.regions[r.id] != r {
			d.mu.Unlock()
			if d.isClosed() {
				return errStopping
			}
			return procError(r.pid(), fmt.Errorf("registering region %d: %w", r.id, numa.ErrProcessGone))
		}
		if err := d.trackStepLocked(r); err != nil {
			d.dropRegionLocked(r, "")
			d.mu.Unlock()
			return err
		}
		if r.tracked == r.blocks.len() {
			return nil
		}
		d.mu.Unlock()
		time.Sleep(trackPause)
	}
}

// isClosed reports whether the daemon stops.
func (d *Daemon) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}

// publishLocked ends the registration of r, every block tracked: the
// samplers watch it, the API shows it, the event stream and the state
// file have it. It returns the region's view.
func (d *Daemon) publishLocked(r *region) (api.Region, error) {
	r.adding = false
	d.owners.set(r.id, r.owner)
	if err := d.watch(r); err != nil {
		d.dropRegionLocked(r, "")
		d.owners.remove(r.id)
		return api.Region{}, err
	}
	d.metrics.regions.Set(float64(len(d.regions)))
	d.log.Named("registry").Info("region registered", "region", r.id, "pid", r.pid(), "tenant", r.tenant,
		"blocks", r.blocks.len(), "source", r.source)
	d.events.publish(api.Event{Type: api.EventRegionRegistered, Region: r.id, PID: r.pid(), Tenant: r.tenant,
		Blocks: r.blocks.len(), Bytes: int64(r.length), Reason: r.source})
	d.saveStateLocked()
	return r.view(), nil
}

// trackLocked builds the region of s on proc and tracks every block in
// one hold of the lock (tests and benchmarks; the API registers in steps,
// addRegionAs). No limit applies. On error nothing is tracked and proc is
// left open.
func (d *Daemon) trackLocked(s regionSpec, proc *numa.Process) (*region, error) {
	d.nextID++
	r, err := buildRegion(d.nextID, &s, proc)
	if err != nil {
		return nil, err
	}
	if err := d.insertLocked(r); err != nil {
		return nil, err
	}
	for r.tracked < r.blocks.len() {
		if err := d.trackStepLocked(r); err != nil {
			d.untrack(r, r.tracked)
			delete(d.regions, r.id)
			d.releaseTenant(r.tenant)
			return nil, err
		}
	}
	r.adding = false
	d.owners.set(r.id, r.owner)
	return r, nil
}
