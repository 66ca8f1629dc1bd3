package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

// registrar connects the workload to the kvtier daemon. A nil client (no
// -daemon flag) makes every method a no-op, so the workload also runs where
// no daemon exists.
type registrar struct {
	client *api.Client
}

func newRegistrar(socket string) *registrar {
	if socket == "" {
		return &registrar{}
	}
	return &registrar{client: api.NewClient(socket)}
}

func (r *registrar) enabled() bool { return r.client != nil }

// register registers the arena as a KV region: its tenant, class and
// priority, with the first pinnedBlocks blocks pinned (an attention sink
// and protected prefix).
func (r *registrar) register(a *arena, class, priority string, pinnedBlocks int) error {
	if r.client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := api.RegisterRequest{
		PID:       os.Getpid(),
		Addr:      uint64(a.addr()),
		Length:    uint64(a.length()),
		BlockSize: uint64(a.blockSize),
		Tenant:    a.tenant,
		Class:     class,
		Priority:  priority,
		Name:      "workload-" + a.tenant,
	}
	if pinnedBlocks > 0 {
		req.Pinned = []api.Range{{Offset: 0, Length: uint64(pinnedBlocks * a.blockSize)}}
	}
	reg, err := r.client.Register(ctx, req)
	if err != nil {
		return fmt.Errorf("registering arena of tenant %s: %w", a.tenant, err)
	}
	a.regionID = reg.ID
	return nil
}

// thinkComplete marks blocks [from, to) of the arena think_complete.
func (r *registrar) thinkComplete(a *arena, from, to int) error {
	if r.client == nil || a.regionID == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rng := api.Range{Offset: uint64(from * a.blockSize), Length: uint64((to - from) * a.blockSize)}
	if _, err := r.client.Update(ctx, a.regionID, api.UpdateRequest{ThinkComplete: []api.Range{rng}}); err != nil {
		return fmt.Errorf("marking blocks %d-%d of tenant %s think_complete: %w", from, to-1, a.tenant, err)
	}
	return nil
}

// hints reports block reads to the daemon's API as well (engines that
// cannot host a uprobe do this).
func (r *registrar) hints(a *arena, blocks []uint64) error {
	if r.client == nil || a.regionID == 0 || len(blocks) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := r.client.Hints(ctx, a.regionID, api.HintsRequest{Blocks: blocks}); err != nil {
		return fmt.Errorf("hinting %d blocks of tenant %s: %w", len(blocks), a.tenant, err)
	}
	return nil
}

func (r *registrar) close() {
	if r.client != nil {
		r.client.Close()
	}
}
