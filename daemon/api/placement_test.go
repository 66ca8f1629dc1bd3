package api

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
)

// pagedServer serves a region of total blocks (ID 7) a page of limit
// blocks at a time on a unix socket, and GET /v1/placement as its first
// page; it returns the socket path.
func pagedServer(t *testing.T, total, limit int) string {
	t.Helper()
	page := func(off int) Placement {
		n := min(limit, total-off)
		p := Placement{Region: 7, Offset: off, TotalBlocks: total, Nodes: map[string]int{"0": n},
			Blocks: make([]BlockPlacement, n), FastBlocks: n}
		for i := range p.Blocks {
			p.Blocks[i] = BlockPlacement{Node: 0, Tier: "fast", Heat: uint32(off + i)}
		}
		if next := off + n; next < total {
			p.NextOffset = &next
		}
		return p
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/regions/7/placement", func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		_ = json.NewEncoder(w).Encode(page(off))
	})
	mux.HandleFunc("GET /v1/placement", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode([]Placement{page(0)})
	})
	path := filepath.Join(t.TempDir(), "k.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return path
}

// TestPlacementJoinsPages: Placement and PlacementByPID follow
// next_offset and join the pages into the whole region, in order.
func TestPlacementJoinsPages(t *testing.T) {
	c := NewClient(pagedServer(t, 25, 10))
	defer c.Close()
	ctx := context.Background()
	p, err := c.Placement(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.PlacementByPID(ctx, 0)
	if err != nil || len(ps) != 1 {
		t.Fatalf("PlacementByPID: %v, %v", ps, err)
	}
	for _, got := range []Placement{p, ps[0]} {
		if len(got.Blocks) != 25 || got.NextOffset != nil || got.FastBlocks != 25 || got.Nodes["0"] != 25 {
			t.Fatalf("joined placement: %d blocks, next %v, %d fast, nodes %v; want 25, none, 25",
				len(got.Blocks), got.NextOffset, got.FastBlocks, got.Nodes)
		}
		for i, b := range got.Blocks {
			if b.Heat != uint32(i) {
				t.Fatalf("block %d is block %d of the region", i, b.Heat)
			}
		}
	}
}

// TestPlacementJoinRefusesGaps: a page that does not follow is an error,
// not a silently wrong region.
func TestPlacementJoinRefusesGaps(t *testing.T) {
	next := 10
	p := Placement{Region: 7, TotalBlocks: 30, Blocks: make([]BlockPlacement, 10), NextOffset: &next}
	if err := p.join(Placement{Region: 7, Offset: 20, TotalBlocks: 30}); err == nil {
		t.Error("a page at 20 joined after blocks 0-10")
	}
	if err := p.join(Placement{Region: 7, Offset: 10, TotalBlocks: 31}); err == nil {
		t.Error("a page of a region of another size joined")
	}
}
