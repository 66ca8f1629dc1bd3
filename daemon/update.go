package daemon

import (
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy"
)

// updateRegion applies an UpdateRequest. Classes only move toward
// eviction: a region or block already think_complete keeps that class
// (none and output_critical may be promoted, so they are no way back).
func (d *Daemon) updateRegion(id uint64, req api.UpdateRequest) (api.Region, error) {
	return d.updateRegionAs(rootCaller, id, req)
}

// updateRegionAs is updateRegion for caller c, who must own the region or
// be root.
func (d *Daemon) updateRegionAs(c caller, id uint64, req api.UpdateRequest) (api.Region, error) {
	defer d.flushState() // after the unlock
	d.mu.Lock()
	defer d.mu.Unlock()
	r, err := d.regionFor(c, id)
	if err != nil {
		return api.Region{}, err
	}
	class, err := nextClass(r, req.Class)
	if err != nil {
		return api.Region{}, err
	}
	prio, rc := r.priority, r.refcount
	if req.Priority != nil {
		if prio, err = ParsePriority(*req.Priority); err != nil {
			return api.Region{}, badRequest("priority: %v", err)
		}
	}
	if req.RefCount != nil {
		if *req.RefCount < 0 {
			return api.Region{}, badRequest("refcount %d: want >= 0", *req.RefCount)
		}
		rc = *req.RefCount
	}
	pinned := r.pinned
	if req.Pinned != nil {
		if err := r.checkRanges("pinned", *req.Pinned); err != nil {
			return api.Region{}, badRequest("%v", err)
		}
		pinned = append([]api.Range{}, *req.Pinned...)
	}
	if err := r.checkRanges("think_complete", req.ThinkComplete); err != nil {
		return api.Region{}, badRequest("%v", err)
	}
	r.priority, r.refcount, r.pinned = prio, rc, pinned
	classChanged := class != r.class
	r.class = class
	now := d.now()
	for i := range r.blocks {
		bc := r.blocks[i].Meta.Class
		if classChanged && bc != policy.ClassThinkComplete {
			bc = class
		}
		if inRanges(r, i, req.ThinkComplete) {
			bc = policy.ClassThinkComplete
		}
		m := r.meta(i, bc)
		if m != r.blocks[i].Meta {
			if err := d.planner.Update(r.blocks[i].ID, m, now); err != nil {
				return api.Region{}, err
			}
			if d.rec != nil {
				d.rec.updated(r, i, now)
			}
		}
	}
	d.saveStateLocked()
	return r.view(), nil
}

// inRanges reports whether block i of r lies in one of rs.
func inRanges(r *region, i int, rs []api.Range) bool {
	off := uint64(i) * r.blockSize
	for _, p := range rs {
		if off >= p.Offset && off < p.Offset+p.Length {
			return true
		}
	}
	return false
}

// nextClass is the class r takes for a requested class (nil: unchanged).
// Classes only move toward eviction from think_complete.
func nextClass(r *region, req *string) (policy.Class, error) {
	if req == nil {
		return r.class, nil
	}
	class, err := policy.ParseClass(*req)
	if err != nil {
		return class, badRequest("class: %v", err)
	}
	if r.class == policy.ClassThinkComplete && class != policy.ClassThinkComplete {
		return class, badRequest("class: region %d is think_complete; classes demote one way", r.id)
	}
	return class, nil
}
