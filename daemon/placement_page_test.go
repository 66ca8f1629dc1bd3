package daemon

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
)

// TestPlacementPaging: a region's placement comes a page at a time, each
// naming the region's total and the next page's offset (none on the
// last); the pages joined are the whole region, as Client.Placement
// returns it.
func TestPlacementPaging(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	c := td.client
	reg, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size, BlockSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	total := reg.Blocks // 128
	var joined []api.BlockPlacement
	for off, want := 0, []int{50, 50, 28}; len(want) > 0; want = want[1:] {
		p, err := c.PlacementPage(ctx, reg.ID, api.Page{Offset: off, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if p.Offset != off || p.TotalBlocks != total || len(p.Blocks) != want[0] ||
			p.FastBlocks+p.SlowBlocks+p.Unmapped != want[0] {
			t.Fatalf("page at %d: offset %d, total %d, %d blocks, counts %d+%d+%d; want %d blocks of %d",
				off, p.Offset, p.TotalBlocks, len(p.Blocks), p.FastBlocks, p.SlowBlocks, p.Unmapped, want[0], total)
		}
		joined = append(joined, p.Blocks...)
		off += want[0]
		if len(want) > 1 && (p.NextOffset == nil || *p.NextOffset != off) {
			t.Fatalf("page at %d: next_offset %v, want %d", p.Offset, p.NextOffset, off)
		}
		if len(want) == 1 && p.NextOffset != nil {
			t.Fatalf("last page: next_offset %d, want none", *p.NextOffset)
		}
	}
	all, err := c.Placement(ctx, reg.ID)
	if err != nil || all.NextOffset != nil || len(all.Blocks) != total {
		t.Fatalf("Placement: %d blocks, next %v, %v; want all %d", len(all.Blocks), all.NextOffset, err, total)
	}
	for i := range joined {
		joined[i].Heat = all.Blocks[i].Heat // heat decays between the calls
	}
	if !reflect.DeepEqual(joined, all.Blocks) {
		t.Error("the pages joined differ from Client.Placement")
	}
	for _, pg := range []string{"limit=0", "limit=65537", "offset=-1", "offset=129", "limit=x"} {
		code, _ := liveRequest(t, unixHTTPClient(td.client.Socket()), "GET",
			"/v1/regions/"+strconv.FormatUint(reg.ID, 10)+"/placement?"+pg, "")
		if code != 400 {
			t.Errorf("placement?%s: %d, want 400", pg, code)
		}
	}
}

// TestPlacementsLimit: GET /v1/placement lists at most limit blocks in
// all; the regions past it come with no blocks and their next offset,
// and Client.PlacementByPID completes every region.
func TestPlacementsLimit(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	c := td.client
	half := wl.Size / 2 // 64 blocks of 64 KiB each
	for _, addr := range []uint64{wl.Addr, wl.Addr + half} {
		if _, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: addr, Length: half,
			BlockSize: 64 << 10}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		limit      int
		blocks     [2]int
		next0, nx1 int // -1: none
	}{
		{100, [2]int{64, 36}, -1, 36},
		{64, [2]int{64, 0}, -1, 0},
		{10, [2]int{10, 0}, 10, 0},
	} {
		ps, err := c.PlacementByPIDPage(ctx, wl.PID(), api.Page{Limit: tc.limit})
		if err != nil || len(ps) != 2 {
			t.Fatalf("limit %d: %d placements, %v", tc.limit, len(ps), err)
		}
		for i, next := range []int{tc.next0, tc.nx1} {
			got := -1
			if ps[i].NextOffset != nil {
				got = *ps[i].NextOffset
			}
			if len(ps[i].Blocks) != tc.blocks[i] || got != next || ps[i].TotalBlocks != 64 {
				t.Errorf("limit %d, region %d: %d blocks of %d, next %d; want %d blocks, next %d",
					tc.limit, i, len(ps[i].Blocks), ps[i].TotalBlocks, got, tc.blocks[i], next)
			}
		}
	}
	all, err := c.PlacementByPID(ctx, wl.PID())
	if err != nil || len(all) != 2 || len(all[0].Blocks) != 64 || len(all[1].Blocks) != 64 {
		t.Fatalf("PlacementByPID: %v, %v", all, err)
	}
}
