package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

// registrar connects the workload to the kvtier daemon; with no socket
// every method is a no-op.
type registrar struct {
	client    *api.Client
	region    uint64
	hints     bool
	pending   []uint64
	lastFlush time.Time
	sent      uint64
}

func newRegistrar(socket string, hints bool) *registrar {
	if socket == "" {
		return &registrar{}
	}
	return &registrar{client: api.NewClient(socket), hints: hints}
}

// register registers the arena as one KV region with no pinned blocks.
func (r *registrar) register(a *arena) error {
	if r.client == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg, err := r.client.Register(ctx, api.RegisterRequest{
		PID: os.Getpid(), Addr: uint64(a.addr()), Length: uint64(len(a.buf)),
		BlockSize: uint64(a.blockSize), Tenant: "hh", Name: "hhwork"})
	if err != nil {
		return fmt.Errorf("registering the arena: %w", err)
	}
	r.region = reg.ID
	return nil
}

// read notes a block read; with -hints the reads go to the daemon at
// most every 250 ms.
func (r *registrar) read(block int) error {
	if !r.hints || r.region == 0 {
		return nil
	}
	r.pending = append(r.pending, uint64(block))
	if time.Since(r.lastFlush) < 250*time.Millisecond {
		return nil
	}
	return r.flush()
}

// flush sends the pending hints.
func (r *registrar) flush() error {
	r.lastFlush = time.Now()
	if len(r.pending) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := len(r.pending)
	_, err := r.client.Hints(ctx, r.region, api.HintsRequest{Blocks: r.pending})
	r.pending = r.pending[:0]
	if err != nil {
		return fmt.Errorf("hinting %d blocks: %w", n, err)
	}
	r.sent += uint64(n)
	return nil
}

func (r *registrar) close() {
	if r.client != nil {
		r.client.Close()
	}
}
