package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// Page selects blocks of a placement request: from block Offset, at most
// Limit blocks (0: PlacementPageBlocks, also the largest allowed).
type Page struct {
	Offset int
	Limit  int
}

// query is the page's query parameters, "" for the defaults.
func (pg Page) query() url.Values {
	q := url.Values{}
	if pg.Offset != 0 {
		q.Set("offset", strconv.Itoa(pg.Offset))
	}
	if pg.Limit != 0 {
		q.Set("limit", strconv.Itoa(pg.Limit))
	}
	return q
}

// PlacementPage returns where the blocks of one page of a region live.
func (c *Client) PlacementPage(ctx context.Context, id uint64, pg Page) (Placement, error) {
	var p Placement
	path := "/regions/" + strconv.FormatUint(id, 10) + "/placement"
	if q := pg.query().Encode(); q != "" {
		path += "?" + q
	}
	err := c.do(ctx, http.MethodGet, path, nil, &p)
	return p, err
}

// Placement returns where every block of a region lives: it asks for
// the pages in turn and joins them.
func (c *Client) Placement(ctx context.Context, id uint64) (Placement, error) {
	p, err := c.PlacementPage(ctx, id, Page{})
	if err != nil {
		return p, err
	}
	return p, c.rest(ctx, &p)
}

// rest fetches the pages of p's region after p and appends them to p.
func (c *Client) rest(ctx context.Context, p *Placement) error {
	for p.NextOffset != nil {
		next, err := c.PlacementPage(ctx, p.Region, Page{Offset: *p.NextOffset})
		if err != nil {
			return fmt.Errorf("placement of region %d from block %d: %w", p.Region, *p.NextOffset, err)
		}
		if err := p.join(next); err != nil {
			return err
		}
	}
	return nil
}

// join appends page q of the same region, the one after p, to p.
func (p *Placement) join(q Placement) error {
	if q.Region != p.Region || q.Offset != p.Offset+len(p.Blocks) || q.TotalBlocks != p.TotalBlocks {
		return fmt.Errorf("placement of region %d: page at block %d of %d does not follow blocks %d-%d of %d",
			p.Region, q.Offset, q.TotalBlocks, p.Offset, p.Offset+len(p.Blocks), p.TotalBlocks)
	}
	p.Blocks = append(p.Blocks, q.Blocks...)
	if p.Nodes == nil {
		p.Nodes = map[string]int{}
	}
	for n, k := range q.Nodes {
		p.Nodes[n] += k
	}
	p.FastBlocks += q.FastBlocks
	p.SlowBlocks += q.SlowBlocks
	p.Unmapped += q.Unmapped
	p.NextOffset = q.NextOffset
	return nil
}

// PlacementByPIDPage returns one answer of GET /v1/placement: a page of
// each region of pid (0: all), pg.Offset in each, at most pg.Limit blocks
// in all; the regions past the limit come with no blocks and their
// NextOffset.
func (c *Client) PlacementByPIDPage(ctx context.Context, pid int, pg Page) ([]Placement, error) {
	var ps []Placement
	q := pg.query()
	if pid != 0 {
		q.Set("pid", strconv.Itoa(pid))
	}
	path := "/placement"
	if e := q.Encode(); e != "" {
		path += "?" + e
	}
	err := c.do(ctx, http.MethodGet, path, nil, &ps)
	return ps, err
}

// PlacementByPID returns the placement of every block of every region of
// pid (0: all): one answer of GET /v1/placement, then the rest of each
// region page by page. A region gone meanwhile is left out.
func (c *Client) PlacementByPID(ctx context.Context, pid int) ([]Placement, error) {
	ps, err := c.PlacementByPIDPage(ctx, pid, Page{})
	if err != nil {
		return nil, err
	}
	out := ps[:0]
	for _, p := range ps {
		err := c.rest(ctx, &p)
		var se *StatusError
		switch {
		case errors.As(err, &se) && se.Code == http.StatusNotFound:
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
