package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
)

// TestRegisterBeyondWatchLimit registers bpf.MaxRegionsPerProcess regions
// of one process, which the sampler watches, and then one more: it gets
// 409 naming the limit, is not tracked, and the watched count is
// unchanged.
func TestRegisterBeyondWatchLimit(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	const n = bpf.MaxRegionsPerProcess + 1
	blk := wl.Size / n / 4096 * 4096
	if blk == 0 {
		t.Fatalf("workload buffer of %d bytes too small for %d regions", wl.Size, n)
	}
	for i := range n {
		req := api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr + uint64(i)*blk, Length: blk, BlockSize: 4096}
		_, err := td.client.Register(ctx, req)
		switch {
		case i < bpf.MaxRegionsPerProcess && err != nil:
			t.Fatalf("region %d: %v", i, err)
		case i == bpf.MaxRegionsPerProcess && !isStatus(err, 409):
			t.Fatalf("region %d: got %v, want 409", i, err)
		case i == bpf.MaxRegionsPerProcess && !strings.Contains(err.Error(), "at most 32 regions per process"):
			t.Errorf("409 does not name the limit: %v", err)
		}
	}
	regs, err := td.client.Regions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(regs) != bpf.MaxRegionsPerProcess {
		t.Errorf("%d regions tracked, want %d", len(regs), bpf.MaxRegionsPerProcess)
	}
	st, err := td.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := st.Samplers[0].Watched; w != bpf.MaxRegionsPerProcess {
		t.Errorf("sampler watches %d regions, want %d", w, bpf.MaxRegionsPerProcess)
	}
}
