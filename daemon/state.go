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
	// fast is the tier of each block as read at registration; nil counts
	// every block fast.
	fast []bool
}

// specFromRequest validates the fields of a register request that need no
// process.
func specFromRequest(req api.RegisterRequest) (regionSpec, error) {
	s := regionSpec{pid: req.PID, addr: req.Addr, length: req.Length, blockSz: req.BlockSize,
		tenant: req.Tenant, name: req.Name, source: "api", priority: policy.PriorityNormal,
		refcount: 1, pinned: req.Pinned}
	if s.blockSz == 0 {
		s.blockSz = DefaultBlockSize
	}
	ps := uint64(numa.PageSize)
	switch {
	case req.PID <= 0:
		return s, badRequest("pid %d: want a process ID > 0", req.PID)
	case req.Addr == 0 || req.Addr%ps != 0:
		return s, badRequest("addr %#x: want a non-zero address aligned to the page size %d", req.Addr, ps)
	case s.blockSz < ps || s.blockSz&(s.blockSz-1) != 0:
		return s, badRequest("block_size %d: want a power of two of at least the page size %d", s.blockSz, ps)
	case req.Length == 0 || req.Length%ps != 0:
		return s, badRequest("length %d: want a non-zero multiple of the page size %d", req.Length, ps)
	case req.Addr+req.Length < req.Addr:
		return s, badRequest("addr %#x length %d: the range wraps around", req.Addr, req.Length)
	case (req.Length+s.blockSz-1)/s.blockSz > maxRegionBlocks:
		return s, badRequest("length %d: more than %d blocks of %d bytes", req.Length, maxRegionBlocks, s.blockSz)
	case req.RefCount < 0:
		return s, badRequest("refcount %d: want >= 0", req.RefCount)
	}
	if req.RefCount > 0 {
		s.refcount = req.RefCount
	}
	var err error
	if req.Class != "" {
		if s.class, err = policy.ParseClass(req.Class); err != nil {
			return s, badRequest("class: %v", err)
		}
	}
	if req.Priority != "" {
		if s.priority, err = ParsePriority(req.Priority); err != nil {
			return s, badRequest("priority: %v", err)
		}
	}
	return s, nil
}

// procError maps an error about a process to an API error.
func procError(pid int, err error) error {
	var re *reqError
	switch {
	case errors.As(err, &re):
		return err
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

// addRegion opens the process, checks the range and tracks the region.
func (d *Daemon) addRegion(s regionSpec) (api.Region, error) {
	proc, err := numa.OpenProcess(s.pid)
	if err != nil {
		return api.Region{}, procError(s.pid, err)
	}
	if err := checkMapped(proc, s.addr, s.length); err != nil {
		proc.Close()
		return api.Region{}, procError(s.pid, err)
	}
	if d.slowNode >= 0 {
		// Blocks start where they are: a restarted daemon or a process
		// placed by someone else may have blocks in the slow tier.
		if s.fast, err = readTiers(proc, d.topo, s.addr, s.length, s.blockSz); err != nil {
			proc.Close()
			return api.Region{}, procError(s.pid, err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		proc.Close()
		return api.Region{}, &reqError{http.StatusServiceUnavailable, "the daemon is stopping"}
	}
	for _, r := range d.regions {
		if r.overlaps(s.pid, s.addr, s.length) {
			proc.Close()
			return api.Region{}, &reqError{http.StatusConflict,
				fmt.Sprintf("pid %d range %#x-%#x overlaps region %d", s.pid, s.addr, s.addr+s.length, r.id)}
		}
	}
	r, err := d.trackLocked(s, proc)
	if err != nil {
		proc.Close()
		return api.Region{}, err
	}
	d.watch(r)
	d.metrics.regions.Set(float64(len(d.regions)))
	d.log.Named("registry").Info("region registered", "region", r.id, "pid", s.pid, "tenant", s.tenant,
		"blocks", len(r.blocks), "source", s.source)
	v := r.view()
	d.events.publish(api.Event{Type: api.EventRegionRegistered, Region: r.id, PID: s.pid, Tenant: s.tenant,
		Blocks: len(r.blocks), Bytes: int64(s.length), Reason: s.source})
	return v, nil
}

// trackLocked builds the region of s on proc and hands its blocks to the
// planner. On error nothing is tracked and proc is left open.
func (d *Daemon) trackLocked(s regionSpec, proc *numa.Process) (*region, error) {
	idx, err := d.acquireTenant(s.tenant)
	if err != nil {
		return nil, err
	}
	d.nextID++
	r := newRegion(d.nextID, proc, s.addr, s.length, s.blockSz)
	if s.fast != nil {
		copy(r.fast, s.fast)
	}
	r.tenant, r.tenantIdx = s.tenant, idx
	r.class, r.priority, r.refcount, r.name, r.source = s.class, s.priority, s.refcount, s.name, s.source
	if err := r.checkRanges("pinned", s.pinned); err != nil {
		d.releaseTenant(s.tenant)
		return nil, badRequest("%v", err)
	}
	r.pinned = append([]api.Range(nil), s.pinned...)
	now := d.now()
	for i := range r.blocks {
		r.blocks[i].Meta = r.meta(i, r.class)
		if err := d.planner.Track(&r.blocks[i], r.fast[i], now); err != nil {
			d.untrack(r, i)
			d.releaseTenant(s.tenant)
			return nil, fmt.Errorf("tracking region blocks: %w", err)
		}
	}
	d.regions[r.id] = r
	return r, nil
}

// untrack removes the first n blocks of r from the planner.
func (d *Daemon) untrack(r *region, n int) {
	for i := range n {
		_ = d.planner.Untrack(r.blocks[i].ID)
		delete(d.demoted, r.blocks[i].ID)
	}
}

// watch adds r to every open sampler.
func (d *Daemon) watch(r *region) {
	br := bpf.Region{ID: uint32(r.id), PID: uint32(r.pid()), Start: r.addr, End: r.addr + r.length, BlockSize: r.blockSize}
	for _, s := range d.samplers {
		if s.s == nil {
			continue
		}
		if err := s.s.Watch(br); err != nil {
			d.log.Named("sampler").Warn("cannot watch region; API hints still count", "sampler", s.name,
				"region", r.id, "pid", r.pid(), "error", err)
			continue
		}
		r.watched = append(r.watched, s.name)
	}
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
	d.untrack(r, len(r.blocks))
	delete(d.regions, r.id)
	d.releaseTenant(r.tenant)
	d.metrics.regions.Set(float64(len(d.regions)))
	pid := r.pid()
	if r.inMove {
		r.closeProc = true // the running mover still uses the handle
	} else {
		r.proc.Close()
	}
	if reason == "" {
		return
	}
	typ := api.EventRegionUnregistered
	if reason != "unregistered" {
		typ = api.EventRegionDropped
		d.metrics.regionsDropped.Inc()
	}
	d.log.Named("registry").Info("region removed", "region", r.id, "pid", pid, "reason", reason)
	d.events.publish(api.Event{Type: typ, Region: r.id, PID: pid, Tenant: r.tenant, Blocks: len(r.blocks), Reason: reason})
}

// removeRegion unregisters a region by ID.
func (d *Daemon) removeRegion(id uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	r, ok := d.regions[id]
	if !ok {
		return notFound("region %d: no such region", id)
	}
	d.dropRegionLocked(r, "unregistered")
	return nil
}

// reapLocked drops the regions of processes that exited or whose PID was
// reused.
func (d *Daemon) reapLocked() {
	for _, r := range d.regions {
		if err := r.proc.Check(); err != nil {
			reason := "process exited"
			if errors.Is(err, numa.ErrPIDReused) {
				reason = "pid reused by another process"
			}
			d.dropRegionLocked(r, reason)
		}
	}
}
