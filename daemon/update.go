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
	for i := range r.blocks.len() {
		if err := d.updateBlockLocked(r, i, classChanged, req.ThinkComplete, now); err != nil {
			return api.Region{}, err
		}
	}
	d.saveStateLocked()
	return r.view(), nil
}

// updateBlockLocked gives block i of r the metadata of r's settings, as
// updated: the region's class if it changed (think_complete stays),
// think_complete if a range of done names it. A block not materialised
// takes its metadata from the region when it is: it is materialised now
// only if it became pinned, and a think_complete mark is kept for it.
func (d *Daemon) updateBlockLocked(r *region, i int, classChanged bool, done []api.Range, now policy.Time) error {
	b := r.blocks.get(i)
	if b == nil {
		if inRanges(r, i, done) {
			r.markThinkDone(i)
		}
		if !r.pinnedAt(i) {
			return nil
		}
		_, err := d.materialiseLocked(r, i, now)
		return err
	}
	bc := b.Meta.Class
	if classChanged && bc != policy.ClassThinkComplete {
		bc = r.class
	}
	if inRanges(r, i, done) {
		bc = policy.ClassThinkComplete
	}
	m := r.meta(i, bc)
	if m == b.Meta {
		return nil
	}
	if err := d.planner.Update(b.ID, m, now); err != nil {
		return err
	}
	if d.rec != nil {
		d.rec.updated(r, i, now)
	}
	return nil
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
