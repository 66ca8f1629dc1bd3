package daemon

import (
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// reqError is an API error with its HTTP status.
type reqError struct {
	code int
	msg  string
}

func (e *reqError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &reqError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &reqError{http.StatusNotFound, fmt.Sprintf(format, a...)}
}

// regionSpec is a validated registration, from the API or a rule.
type regionSpec struct {
	pid                   int
	addr, length, blockSz uint64
	tenant, name, source  string
	class                 policy.Class
	priority              policy.Priority
	refcount              int32
	pinned                []api.Range
	owner                 uint32 // uid that may change the region (0: root only)
	uid                   uint32 // the process's real uid, read at registration
	startTime             uint64 // if not 0, the process must have this start time (a restored registration)
	id                    uint64 // if not 0 and free, the region's ID (a restored registration keeps its ID)
	// fast is the tier of each block as read at registration; nil counts
	// every block fast.
	fast []bool
}

// procError maps an error about a process to an API error.
func procError(pid int, err error) error {
	var re *reqError
	switch {
	case errors.As(err, &re):
		return err
	case numa.OutOfFiles(err):
		return outOfFiles(pid, err)
	case errors.Is(err, numa.ErrProcessGone), errors.Is(err, numa.ErrPIDReused):
		return notFound("pid %d: no such process", pid)
	case errors.Is(err, numa.ErrPermission), errors.Is(err, os.ErrPermission):
		return &reqError{http.StatusForbidden, fmt.Sprintf(
			"pid %d: the daemon may not read its memory map (it needs root or CAP_SYS_PTRACE over the process): %v", pid, err)}
	}
	return fmt.Errorf("pid %d: %w", pid, err)
}

// checkMapped verifies that the process maps every byte of [addr, addr+length).
func checkMapped(proc *numa.Process, addr, length uint64) error {
	maps, err := proc.Maps()
	if err != nil {
		return err
	}
	next := addr
	for _, m := range maps.Overlapping(uintptr(addr), uintptr(addr+length)) {
		if uint64(m.Start) > next {
			break
		}
		next = max(next, uint64(m.End))
	}
	if next < addr+length {
		return badRequest("pid %d does not map %#x-%#x (first unmapped byte %#x); see /proc/%d/maps",
			proc.PID(), addr, addr+length, next, proc.PID())
	}
	return nil
}

// openSpecProcess opens s.pid, by its start time when s has one. The
// regions of one process share its pidfd (d.procs): a process costs the
// daemon one file descriptor however many regions it registers.
func (d *Daemon) openSpecProcess(s *regionSpec) (*numa.Process, error) {
	if s.startTime != 0 {
		return d.procs.Attach(s.pid, s.startTime)
	}
	return d.procs.Open(s.pid)
}

// openFor opens process s.pid for caller c: c must be allowed to act on it
// (authorizer.mayAct), and it must map the range. It reads where the
// range's blocks are into s.fast.
func (d *Daemon) openFor(c caller, s *regionSpec) (*numa.Process, error) {
	proc, err := d.openSpecProcess(s)
	if err != nil {
		return nil, procError(s.pid, err)
	}
	// The credentials read are the pidfd's process's only if it is still
	// the same process after the read.
	if err := d.auth.mayAct(c, s.pid); err != nil {
		proc.Close()
		return nil, err
	}
	if err := proc.Check(); err != nil {
		proc.Close()
		return nil, procError(s.pid, err)
	}
	if err := checkMapped(proc, s.addr, s.length); err != nil {
		proc.Close()
		return nil, procError(s.pid, err)
	}
	cr, err := d.auth.creds(s.pid)
	if err != nil {
		proc.Close()
		return nil, procError(s.pid, err)
	}
	s.uid = cr.UIDs[0]
	if d.slowNode >= 0 {
		// Blocks start where they are: a restarted daemon or a process
		// placed by someone else may have blocks in the slow tier.
		if s.fast, err = readTiers(proc, d.topo, s.addr, s.length, s.blockSz); err != nil {
			proc.Close()
			return nil, procError(s.pid, err)
		}
	}
	return proc, nil
}

// addRegion registers s for the daemon itself (rules), owned by root.
func (d *Daemon) addRegion(s regionSpec) (api.Region, error) { return d.addRegionAs(rootCaller, s) }

// addRegionAs registers s for caller c: it opens the process, checks that
// c may act on it and that it maps the range, checks the limits and tracks
// the region, owned by c, in steps that never hold d.mu for long (see
// track.go). The state file is written when it answers, without d.mu.
func (d *Daemon) addRegionAs(c caller, s regionSpec) (api.Region, error) {
	s.owner = c.uid
	proc, err := d.openFor(c, &s)
	if err != nil {
		return api.Region{}, err
	}
	id, err := d.reserveID(&s)
	if err != nil {
		proc.Close()
		return api.Region{}, err
	}
	r, err := buildRegion(id, &s, proc)
	if err != nil {
		proc.Close()
		return api.Region{}, err
	}
	d.mu.Lock()
	err = d.admitLocked(&s)
	if err == nil {
		err = d.insertLocked(r)
	}
	d.mu.Unlock()
	if err != nil {
		proc.Close()
		return api.Region{}, err
	}
	if err := d.trackSteps(r); err != nil {
		return api.Region{}, err
	}
	v, err := d.publishLocked(r)
	d.mu.Unlock()
	d.flushState()
	return v, err
}

// untrack removes the materialised blocks among the first n of r from
// the planner (the others were never tracked, nor demoted), its pool and
// its dense declaration.
func (d *Daemon) untrack(r *region, n int) {
	d.closePoolLocked(r)
	d.planner.Dense(uint32(r.id), 0)
	r.eachBlock(n, func(_ int, b *policy.Block) {
		_ = d.planner.Untrack(b.ID)
	})
}

// watch adds r to every open sampler. A sampler whose watch list is full
// (bpf.ErrTooManyRegions) refuses the registration: the answer is a 409
// naming the limit, and the caller drops r (the samplers that took it
// are in r.watched). Other sampler errors are logged: API hints still count.
func (d *Daemon) watch(r *region) error {
	br := bpf.Region{ID: uint32(r.id), PID: uint32(r.pid()), Start: r.addr, End: r.addr + r.length, BlockSize: r.blockSize}
	for _, s := range d.samplers {
		if s.s == nil {
			continue
		}
		err := s.s.Watch(br)
		if errors.Is(err, bpf.ErrTooManyRegions) {
			return &reqError{http.StatusConflict, fmt.Sprintf(
				"pid %d: sampler %s cannot watch another region (the samplers watch at most %d regions per process): %v; "+
					"register fewer, larger regions", r.pid(), s.name, bpf.MaxRegionsPerProcess, err)}
		}
		if err != nil {
			d.log.Named("sampler").Warn("cannot watch region; API hints still count", "sampler", s.name,
				"region", r.id, "pid", r.pid(), "error", err)
			continue
		}
		r.watched = append(r.watched, s.name)
	}
	return nil
}

// dropRegionLocked untracks r, unwatches it and closes its process
// handle. reason "" drops silently (shutdown).
func (d *Daemon) dropRegionLocked(r *region, reason string) {
	for _, s := range d.samplers {
		if s.s == nil {
			continue
		}
		for _, w := range r.watched {
			if w == s.name {
				if err := s.s.Unwatch(uint32(r.id)); err != nil && !errors.Is(err, bpf.ErrNoRegion) {
					d.log.Named("sampler").Warn("unwatching region", "sampler", s.name, "region", r.id, "error", err)
				}
			}
		}
	}
	if d.rec != nil && reason != "" {
		d.rec.freed(r, d.now())
	}
	d.untrack(r, r.tracked) // a region still being added has tracked only these
	delete(d.regions, r.id)
	d.releaseTenant(r.tenant)
	d.metrics.regions.Set(float64(len(d.regions)))
	pid := r.pid()
	if r.inMove {
		r.closeProc = true // the running mover still uses the handle
	} else {
		r.proc.Close()
	}
	if reason == "" || r.adding {
		return // never published (track.go): its registration answers the error
	}
	typ := api.EventRegionUnregistered
	if reason != "unregistered" {
		typ = api.EventRegionDropped
		d.metrics.regionsDropped.Inc()
	}
	d.log.Named("registry").Info("region removed", "region", r.id, "pid", pid, "reason", reason)
	d.saveStateLocked()
	d.events.publish(api.Event{Type: typ, Region: r.id, PID: pid, Tenant: r.tenant, Blocks: r.blocks.len(), Reason: reason})
	d.owners.remove(r.id)
}

// removeRegion unregisters a region by ID for the daemon itself.
func (d *Daemon) removeRegion(id uint64) error { return d.removeRegionAs(rootCaller, id) }

// removeRegionAs unregisters a region by ID for caller c.
func (d *Daemon) removeRegionAs(c caller, id uint64) error {
	defer d.flushState() // after the unlock
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.regionFor(c, id)
	if err != nil {
		return err
	}
	d.dropRegionLocked(r, "unregistered")
	return nil
}

// reapLocked drops the regions of processes that exited, as their pidfds
// say (a PID cannot be reused while its pidfd shows the process alive, so
// that needs no /proc read); any other failure keeps the region and is
// logged.
func (d *Daemon) reapLocked() {
	for _, r := range d.regions {
		err := r.proc.Check()
		switch {
		case err == nil:
		case errors.Is(err, numa.ErrProcessGone):
			d.dropRegionLocked(r, "process exited")
		default:
			d.log.Named("registry").Warn("cannot check the region's process; keeping it", "region", r.id,
				"pid", r.pid(), "error", err)
		}
	}
}
