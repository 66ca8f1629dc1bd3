//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
)

func init() { samplers["damon"] = openDamon }

// damon keeps DAMON's targets in step with the watch list.
type damon struct {
	c     *core
	admin *damonAdmin
}

func openDamon(opts Options) (Sampler, error) {
	admin := newDamonAdmin(opts.SysRoot, opts.ProcRoot, damonAttrs{
		sample: opts.DAMONSample, aggr: opts.DAMONAggregate, maxRegions: opts.DAMONMaxRegions,
		perBlock: opts.DAMONRegionsPerBlock,
	})
	tid, region, err := damonArgs()
	if err != nil {
		return nil, err
	}
	if err := admin.probe(); err != nil {
		return nil, errors.Join(err, admin.close())
	}
	c, err := load("damon", kvtierProgOnDamon, opts, map[string]any{
		kvtierVarDamonTidArg: tid, kvtierVarDamonRegionArg: region})
	if err != nil {
		return nil, errors.Join(err, admin.close())
	}
	d := &damon{c: c, admin: admin}
	c.watchHook = d.retarget
	c.statsHook = func(s *Stats) { s.KernelCPUSeconds = admin.cpu().Seconds() }
	// Closed first (closers run in reverse): stop DAMON, then detach.
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "damon_aggregated", Program: c.objs.Prog})
	if err != nil {
		c.Close()
		return nil, errors.Join(classify(fmt.Errorf("attaching to tracepoint damon:damon_aggregated: %w", err)), admin.close())
	}
	c.closers = append(c.closers, l, closerFunc(admin.close))
	return c, nil
}

// damonArgs finds, in the kernel's BTF, the raw tracepoint argument
// positions of target_id (the first integer) and of the damon_region
// pointer: the prototype lost its damon_target argument after 6.1.
func damonArgs() (tid, region uint32, err error) {
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		return 0, 0, fmt.Errorf("loading kernel BTF: %w (%w)", err, ErrNoBTF)
	}
	var td *btf.Typedef
	if err := spec.TypeByName("btf_trace_damon_aggregated", &td); err != nil {
		return 0, 0, fmt.Errorf("kernel has no tracepoint damon:damon_aggregated (CONFIG_DAMON): %w", ErrNotSupported)
	}
	ptr, ok := td.Type.(*btf.Pointer)
	proto, ok2 := func() (*btf.FuncProto, bool) {
		if !ok {
			return nil, false
		}
		p, ok := ptr.Target.(*btf.FuncProto)
		return p, ok
	}()
	if !ok2 || len(proto.Params) < 2 {
		return 0, 0, fmt.Errorf("btf_trace_damon_aggregated is not a tracepoint prototype: %w", ErrNotSupported)
	}
	tid, region = 99, 99
	for i, p := range proto.Params[1:] { // Params[0] is the probe's data pointer
		switch t := btf.UnderlyingType(p.Type).(type) {
		case *btf.Int:
			if tid == 99 {
				tid = uint32(i)
			}
		case *btf.Pointer:
			if s, ok := t.Target.(*btf.Struct); ok && s.Name == "damon_region" {
				region = uint32(i)
			}
		}
	}
	if tid > 3 || region > 3 {
		return 0, 0, fmt.Errorf("damon_aggregated arguments not understood (target_id at %d, region at %d): %w", tid, region, ErrNotSupported)
	}
	return tid, region, nil
}

// retarget restarts DAMON on the watched regions: one target per process,
// its regions those of damonLayout, and writes the target index -> pid
// map the BPF program reads.
func (d *damon) retarget(regions map[uint32]Region) error {
	targets := damonLayout(regions, d.admin.attrs.maxRegions, d.admin.attrs.perBlock)
	if uint32(len(targets)) > d.c.objs.DamonTargets.MaxEntries() {
		return fmt.Errorf("%d DAMON targets: %w", len(targets), ErrTooManyRegions)
	}
	for i := range d.c.objs.DamonTargets.MaxEntries() {
		pid := uint32(0)
		if int(i) < len(targets) {
			pid = targets[i].pid
		}
		if err := d.c.objs.DamonTargets.Put(i, pid); err != nil {
			return fmt.Errorf("writing DAMON target %d: %w", i, err)
		}
	}
	if err := d.admin.apply(targets); err != nil {
		return fmt.Errorf("configuring DAMON for %d processes: %w", len(targets), err)
	}
	return nil
}

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }
