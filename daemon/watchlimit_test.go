package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
)

// TestRegisterBeyondWatchLimit fills the sampler's watch list (its
// max_watched parameter, so that the test registers 4 regions, not
// bpf.MaxRegionsPerProcess + 1) and registers one more: it gets 409
// naming the limits, is not tracked, and the watched count is unchanged.
// bpf's TestWatchManyRegions fills one process's list.
func TestRegisterBeyondWatchLimit(t *testing.T) {
	const limit = 4
	td := startDaemon(t, strings.Replace(testConfig, `sampler "sw-page-faults" {}`,
		fmt.Sprintf(`sampler "sw-page-faults" { max_watched = %d }`, limit), 1))
	wl := startWorkload(t)
	ctx := context.Background()
	const n = limit + 1
	blk := wl.Size / n / 4096 * 4096
	for i := range n {
		req := api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr + uint64(i)*blk, Length: blk, BlockSize: 4096}
		_, err := td.client.Register(ctx, req)
		switch {
		case i < limit && err != nil:
			t.Fatalf("region %d: %v", i, err)
		case i == limit && !isStatus(err, 409):
			t.Fatalf("region %d: got %v, want 409", i, err)
		case i == limit && (!strings.Contains(err.Error(), fmt.Sprintf("at most %d regions per process", bpf.MaxRegionsPerProcess)) ||
			!strings.Contains(err.Error(), "max_watched")):
			t.Errorf("409 does not name the limits: %v", err)
		}
	}
	regs, err := td.client.Regions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) != limit {
		t.Errorf("%d regions tracked, want %d", len(regs), limit)
	}
	st, err := td.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := st.Samplers[0].Watched; w != limit {
		t.Errorf("sampler watches %d regions, want %d", w, limit)
	}
}
