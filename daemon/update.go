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
	classChanged := class != r.class
	// The pooled blocks change bucket: the loop below pools them anew,
	// as newest (as a tracked block changing bucket is admitted anew).
	repool := r.pool != nil && (classChanged || prio != r.priority || rc != r.refcount)
	if repool {
		d.closePoolLocked(r)
	}
	ch := blockChange{classChanged: classChanged, repool: repool, done: req.ThinkComplete}
	if d.rec != nil {
		prev := *r // the settings before, for the recorder
		ch.prev = &prev
	}
	r.priority, r.refcount, r.pinned = prio, rc, pinned
	r.class = class
	now := d.now()
	for i := range r.blocks.len() {
		if err := d.updateBlockLocked(r, i, ch, now); err != nil {
			return api.Region{}, err
		}
	}
	d.saveStateLocked()
	return r.view(), nil
}

// updateBlockLocked gives block i of r the metadata of r's settings, as
// updated: the region's class if it changed (think_complete stays),
// think_complete if a range of done names it.
func (d *Daemon) updateBlockLocked(r *region, i int, c blockChange, now policy.Time) error {
	b := r.blocks.get(i)
	if b == nil {
		return d.updateUnmaterialisedLocked(r, i, c, now)
	}
	bc := b.Meta.Class
	if c.classChanged && bc != policy.ClassThinkComplete {
		bc = r.class
	}
	if inRanges(r, i, c.done) {
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

// blockChange is what an update changes of every block of a region.
type blockChange struct {
	classChanged bool        // the region's class changed
	repool       bool        // the region's pool was closed
	done         []api.Range // ranges marked think_complete
	prev         *region     // the region's settings before (only while recording)
}

// updateUnmaterialisedLocked updates block i of r, not materialised, which
// takes its metadata from the region when it is: a think_complete mark
// (done) is kept for it; it is materialised now if it became pinned, or
// if it is fast and marked (it leaves the region's pool's bucket); a fast
// block no longer pooled (repool: the pool was closed) joins the region's
// new pool. A recording that has seen the block records its new metadata
// if it changed.
func (d *Daemon) updateUnmaterialisedLocked(r *region, i int, c blockChange, now policy.Time) error {
	// Only a recording that has seen the block needs its old metadata.
	seen := c.prev != nil && d.rec.knows(r.idOf(i))
	var old policy.Meta
	if seen {
		old = c.prev.meta(i, c.prev.classOf(i))
	}
	wasPooled := !c.repool && r.pooled(i)
	done := inRanges(r, i, c.done)
	if done {
		r.markThinkDone(i)
	}
	var err error
	switch {
	case r.pinnedAt(i) || (done && r.fast.get(i)):
		_, err = d.materialiseFrom(r, i, wasPooled, now)
	case r.fast.get(i) && !wasPooled:
		err = d.poolLocked(r, i)
	}
	if err == nil && seen && r.metaOf(i) != old {
		d.rec.updated(r, i, now)
	}
	return err
}
