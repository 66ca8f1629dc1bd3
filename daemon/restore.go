package daemon

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/kvtier/kvtier/numa"
)

// errProcessChanged: a saved registration's process is gone or is not the
// process that registered it.
var errProcessChanged = errors.New("the registered process is gone or changed")

// restoreState creates the state directory if it is missing (0700, as the
// unit's StateDirectory would), then registers again the API
// registrations of the state file,
// each only if its process is still the one that registered it (same pid,
// start time and uid); the others are dropped and logged. A file that
// cannot be parsed is logged with where it is corrupt, moved aside and
// the daemon starts without it.
func (d *Daemon) restoreState() {
	path := d.statePath()
	log := d.log.Named("state")
	if err := os.MkdirAll(d.cfg.StateDir, 0o700); err != nil {
		log.Warn("cannot create the state directory; registrations will not survive a restart",
			"dir", d.cfg.StateDir, "error", err)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		log.Error("cannot read the registrations; starting without them", "file", path, "error", err)
		return
	}
	st, err := parseState(b)
	if err != nil {
		aside := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405Z")
		rerr := os.Rename(path, aside)
		log.Error(fmt.Sprintf("%s: %v; starting without the registrations", path, err),
			"file", path, "moved_to", aside, "rename_error", rerr)
		return
	}
	d.setRestoring(true)
	d.mu.Lock()
	d.restoreFloor = d.nextID
	for i, sr := range st.Regions {
		if sr.ID > math.MaxUint32 {
			// Block IDs and the samplers hold a region ID in 32 bits:
			// a larger one (a damaged file) gets a new ID.
			st.Regions[i].ID = 0
			continue
		}
		d.nextID = max(d.nextID, sr.ID)
	}
	d.mu.Unlock()
	kept := 0
	for _, sr := range st.Regions {
		if err := d.restoreOne(sr); err != nil {
			log.Warn("saved registration dropped", "pid", sr.Request.PID, "addr", fmt.Sprintf("%#x", sr.Request.Addr),
				"length", sr.Request.Length, "tenant", sr.Request.Tenant, "reason", err)
			continue
		}
		kept++
	}
	d.setRestoring(false)
	d.mu.Lock()
	d.saveStateLocked()
	d.mu.Unlock()
	d.flushState()
	log.Info("registrations restored", "file", path, "restored", kept, "dropped", len(st.Regions)-kept)
}

// setRestoring sets d.restoring under the lock.
func (d *Daemon) setRestoring(on bool) {
	d.mu.Lock()
	d.restoring = on
	d.mu.Unlock()
}

// restoreOne registers sr again if its process is the one that
// registered it. The handle is attached by pid and start time, so a pid
// reused after the check is refused too.
func (d *Daemon) restoreOne(sr savedRegion) error {
	pid := sr.Request.PID
	st, err := numa.ReadStat(d.opts.ProcRoot, pid)
	switch {
	case errors.Is(err, numa.ErrProcessGone):
		return fmt.Errorf("%w: pid %d exited", errProcessChanged, pid)
	case err != nil:
		return fmt.Errorf("pid %d: %w", pid, err)
	case st.StartTime != sr.StartTime:
		return fmt.Errorf("%w: pid %d started at tick %d, the registered process at %d",
			errProcessChanged, pid, st.StartTime, sr.StartTime)
	}
	cr, err := d.auth.creds(pid)
	if err != nil {
		return fmt.Errorf("pid %d: %w", pid, err)
	}
	if cr.UIDs[0] != sr.UID {
		return fmt.Errorf("%w: pid %d now has uid %d, the registered process had %d",
			errProcessChanged, pid, cr.UIDs[0], sr.UID)
	}
	spec, err := specFromRequest(sr.Request, hardLimits) // accepted once: a lowered limit keeps it
	if err != nil {
		return err
	}
	spec.refcount, spec.startTime, spec.id = sr.RefCount, sr.StartTime, sr.ID
	// The process is the one its owner was allowed to register: it acts
	// as the process itself, and the region keeps its owner.
	_, err = d.addRegionAs(caller{pid: pid, uid: sr.Owner}, spec)
	return err
}
