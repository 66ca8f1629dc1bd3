package daemon

import (
	"net/http"
	"strconv"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/numa"
)

// Placement answers are paged so that their bodies stay bounded: a
// region of millions of blocks answered in one body of tens of MB (and
// as much memory per request). GET /v1/regions/{id}/placement lists blocks
// [offset, offset+limit) of the region; GET /v1/placement lists that page
// of each region in ID order, at most limit blocks in all, and the
// regions past the limit with no blocks. limit defaults to, and may not
// exceed, api.PlacementPageBlocks; each answer says the region's total
// blocks and the next page's offset.

// pageParams reads the offset and limit query parameters.
func pageParams(r *http.Request) (api.Page, error) {
	pg := api.Page{Limit: api.PlacementPageBlocks}
	q := r.URL.Query()
	if s := q.Get("offset"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return pg, badRequest("offset %q: want a block index >= 0", s)
		}
		pg.Offset = n
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > api.PlacementPageBlocks {
			return pg, badRequest("limit %q: want 1 to %d blocks", s, api.PlacementPageBlocks)
		}
		pg.Limit = n
	}
	return pg, nil
}

// placement asks the kernel where the first page of each block of page pg
// of region id lives, for caller c. An offset past the region's end is a
// 400 unless clip, which makes it an empty page at the end.
func (d *Daemon) placement(c caller, id uint64, pg api.Page, clip bool) (api.Placement, error) {
	d.mu.Lock()
	r, err := d.regionFor(c, id)
	if err != nil {
		d.mu.Unlock()
		return api.Placement{}, err
	}
	total := r.blocks.len()
	if pg.Offset > total {
		if !clip {
			d.mu.Unlock()
			return api.Placement{}, badRequest("offset %d: region %d has %d blocks", pg.Offset, id, total)
		}
		pg.Offset = total
	}
	n := min(pg.Limit, total-pg.Offset)
	pages := make([]uintptr, n)
	for i := range pages {
		pages[i] = uintptr(r.blockAddr(pg.Offset + i))
	}
	heat := r.heat.appendRange(make([]float32, 0, n), pg.Offset, pg.Offset+n)
	p := api.Placement{Region: id, PID: r.pid(), BlockSize: r.blockSize, Offset: pg.Offset, TotalBlocks: total,
		Nodes: map[string]int{}, Blocks: make([]api.BlockPlacement, n)}
	d.mu.Unlock()
	if next := pg.Offset + n; next < total {
		p.NextOffset = &next
	}
	if n == 0 {
		return p, nil
	}
	return p, d.fillPlacement(&p, pages, heat)
}

// fillPlacement queries where pages (the first of each block of p) are
// and fills in p's blocks and counts.
func (d *Daemon) fillPlacement(p *api.Placement, pages []uintptr, heat []float32) error {
	status := make([]numa.PageStatus, len(pages))
	if err := numa.QueryPages(p.PID, pages, status, 0); err != nil {
		return err
	}
	for i, st := range status {
		bp := api.BlockPlacement{Node: -1, Tier: "none", Heat: viewHeat(heat[i])}
		if node, ok := st.OnNode(); ok {
			bp.Node = node
			if cls, err := d.topo.ClassOf(node); err == nil {
				bp.Tier = cls.String()
			}
			p.Nodes[strconv.Itoa(node)]++
			switch bp.Tier {
			case "fast":
				p.FastBlocks++
			case "slow":
				p.SlowBlocks++
			}
		} else {
			p.Unmapped++
		}
		p.Blocks[i] = bp
	}
	return nil
}

func (d *Daemon) handlePlacement(w http.ResponseWriter, r *http.Request) {
	c, id, err := callerAndID(r)
	var pg api.Page
	if err == nil {
		pg, err = pageParams(r)
	}
	if err == nil {
		var p api.Placement
		if p, err = d.placement(c, id, pg, false); err == nil {
			writeJSON(w, http.StatusOK, p)
			return
		}
	}
	writeError(w, err)
}

// handlePlacements lists a page of each region the caller sees (of one
// pid), at most the page's limit of blocks in all.
func (d *Daemon) handlePlacements(w http.ResponseWriter, r *http.Request) {
	c, err := callerOf(r)
	var pg api.Page
	if err == nil {
		pg, err = pageParams(r)
	}
	pid := 0
	if s := r.URL.Query().Get("pid"); err == nil && s != "" {
		if pid, err = strconv.Atoi(s); err != nil || pid <= 0 {
			err = badRequest("pid %q: want a positive integer", s)
		}
	}
	if err != nil {
		writeError(w, err)
		return
	}
	out := []api.Placement{}
	left := pg.Limit
	for _, reg := range d.regionViews(c, pid) {
		p, err := d.placement(c, reg.ID, api.Page{Offset: pg.Offset, Limit: left}, true)
		if err != nil {
			continue // dropped or exited meanwhile
		}
		left -= len(p.Blocks)
		out = append(out, p)
	}
	writeJSON(w, http.StatusOK, out)
}
