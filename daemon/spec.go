package daemon

import (
	"net/http"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// specFromRequest validates the fields of a register request that need no
// process. The pid must be set (handleRegister fills in the caller's).
func specFromRequest(req api.RegisterRequest, lim Limits) (regionSpec, error) {
	s := regionSpec{pid: req.PID, addr: req.Addr, length: req.Length, blockSz: req.BlockSize,
		tenant: req.Tenant, name: req.Name, source: "api", priority: policy.PriorityNormal,
		refcount: 1, pinned: req.Pinned}
	if s.blockSz == 0 {
		s.blockSz = DefaultBlockSize
	}
	ps := uint64(numa.PageSize)
	if err := lim.checkBlockSize(s.blockSz); err != nil {
		return s, badRequest("block_size %d: want %s (%v)", s.blockSz, lim.blockSizeWant(), err)
	}
	switch {
	case req.PID <= 0:
		return s, badRequest("pid %d: want a process ID > 0, or no pid for the calling process", req.PID)
	case req.Addr == 0 || req.Addr%ps != 0:
		return s, badRequest("addr %#x: want a non-zero address aligned to the page size %d", req.Addr, ps)
	case req.Length == 0 || req.Length%ps != 0:
		return s, badRequest("length %d: want a non-zero multiple of the page size %d", req.Length, ps)
	case req.Addr+req.Length < req.Addr:
		return s, badRequest("addr %#x length %d: the range wraps around", req.Addr, req.Length)
	case (req.Length+s.blockSz-1)/s.blockSz > maxRegionBlocks:
		return s, badRequest("length %d: more than %d blocks of %d bytes", req.Length, maxRegionBlocks, s.blockSz)
	case req.RefCount < 0:
		return s, badRequest("refcount %d: want >= 0", req.RefCount)
	}
	if err := lim.checkLabel("tenant", req.Tenant); err != nil {
		return s, badRequest("%v", err)
	}
	if err := lim.checkLabel("name", req.Name); err != nil {
		return s, badRequest("%v", err)
	}
	return specOptions(s, req)
}

// specOptions parses the refcount, class and priority of req into s.
func specOptions(s regionSpec, req api.RegisterRequest) (regionSpec, error) {
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

// regionFor returns region id if caller c may see and change it: its
// owner or root. Other callers get the answer a missing region gets, so
// that they learn nothing about other users' regions. A region still
// being registered (adding, track.go) is missing to all.
func (d *Daemon) regionFor(c caller, id uint64) (*region, error) {
	r, ok := d.regions[id]
	if !ok || r.adding || !c.mayOwn(r.owner) {
		return nil, notFound("region %d: no such region", id)
	}
	return r, nil
}

// errStopping is the answer while the daemon shuts down.
var errStopping = &reqError{http.StatusServiceUnavailable, "the daemon is stopping"}
