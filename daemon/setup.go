package daemon

import (
	"fmt"
	"strings"

	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy/plan"
)

// setupTopology reads and classifies the NUMA nodes and picks the
// promotion and demotion targets.
func (d *Daemon) setupTopology() error {
	topo, err := numa.ReadTopology(d.opts.SysRoot)
	if err != nil {
		return fmt.Errorf("reading the NUMA topology: %w", err)
	}
	over := map[int]numa.Class{}
	for _, n := range d.cfg.Tiers.Fast {
		over[n] = numa.ClassFast
	}
	for _, n := range d.cfg.Tiers.Slow {
		over[n] = numa.ClassSlow
	}
	if err := topo.Classify(over); err != nil {
		return fmt.Errorf("classifying NUMA nodes (tiers block of %s): %w", d.cfg.File, err)
	}
	d.topo = topo
	d.fastNode, d.slowNode = -1, -1
	for _, n := range topo.Nodes {
		switch {
		case n.Class == numa.ClassFast && d.fastNode < 0:
			d.fastNode = n.ID
		case n.Class == numa.ClassSlow && d.slowNode < 0:
			d.slowNode = n.ID
		}
	}
	if d.fastNode < 0 {
		return fmt.Errorf("no fast memory node among %d nodes: %w", len(topo.Nodes), numa.ErrNoNode)
	}
	d.moving = d.slowNode >= 0
	if d.moving {
		d.metrics.singleNode.Set(0)
	} else {
		d.metrics.singleNode.Set(1)
	}
	d.log.Named("topology").Info("nodes classified", "nodes", len(topo.Nodes), "fast_node", d.fastNode,
		"slow_node", d.slowNode)
	return nil
}

// setupKernel applies kernel_tiering to what the kernel does itself.
func (d *Daemon) setupKernel() error {
	log := d.log.Named("kernel")
	mode := d.cfg.KernelTiering
	d.kernel = setKernelStatus(mode, numa.KernelState{NUMABalancing: numa.Unknown, Demotion: numa.Unknown}, "none")
	st, err := numa.ReadKernelState(d.opts.ProcRoot, d.opts.SysRoot)
	if err != nil {
		log.Warn("cannot read the kernel's tiering state", "error", err)
		return nil
	}
	conflicts := st.Conflicts()
	if len(conflicts) == 0 {
		d.kernel = setKernelStatus(mode, st, "none needed")
		d.metrics.kernelTiering.Set(0)
		return nil
	}
	d.metrics.kernelTiering.Set(1)
	switch mode {
	case KernelTieringRefuse:
		return fmt.Errorf("%w: %s; kernel_tiering = \"refuse\" (set \"disable\" or \"report\")",
			ErrKernelTiering, strings.Join(conflicts, "; "))
	case KernelTieringDisable:
		if _, err := numa.DisableKernelTiering(d.opts.ProcRoot, d.opts.SysRoot); err != nil {
			return fmt.Errorf("kernel_tiering = \"disable\": %w", err)
		}
		log.Info("turned the kernel's own tiering off", "was", strings.Join(conflicts, "; "))
		d.kernel = setKernelStatus(mode, st, "disabled")
		d.metrics.kernelTiering.Set(0)
	default:
		for _, c := range conflicts {
			log.Warn("kernel tiering conflicts with kvtier; reporting only, no moves", "conflict", c)
		}
		d.kernel = setKernelStatus(mode, st, "reporting only: kvtier does not move pages")
		d.moving = false
	}
	return nil
}

// plannerConfig translates the daemon config into the planner's.
func (d *Daemon) plannerConfig(cfg *Config) (plan.Config, error) {
	b := cfg.Budgets
	pc := plan.Config{
		Policy: cfg.Policy.String(),
		Budget: plan.Budget{
			FastBytes:   b.FastBytes,
			TenantBytes: map[uint32]int64{},
			MovePages:   b.PagesPerEpoch,
			PageSize:    int64(numa.PageSize),
		},
		Decay:      cfg.Planner.Decay,
		Cooldown:   int64(cfg.Planner.Cooldown),
		PromoteMin: cfg.Planner.PromoteMin,
		Reuse:      cfg.Planner.ReuseEpochs,
		Headroom:   cfg.Planner.Headroom,
	}
	pc.Budget.MoveBytes = epochBytes(cfg) // what the mover can move: see moverConfig
	if d.slowNode < 0 {
		// Nowhere to demote to: plan without a fast-tier limit so nothing
		// is chosen for a move that cannot happen.
		pc.Budget.FastBytes = 0
	}
	for name, q := range b.Tenants {
		pc.Budget.TenantBytes[d.tenantIndex(name)] = q
	}
	if err := pc.Validate(); err != nil {
		return pc, fmt.Errorf("planner config from %s: %w", cfg.File, err)
	}
	return pc, nil
}

// moverConfig translates the daemon config into the mover's budgets.
//
// The planner plans migrate_bytes_per_sec x epoch bytes per epoch, and the
// mover must be able to move all of them before its deadline
// (Config.MoveDeadline, three quarters of the epoch by default, the rest
// being headroom for draining, deciding and feedback). The token bucket's
// burst is therefore one epoch's bytes: epochs start one epoch apart, and
// a run that took its epoch's bytes over its run has them back, at the
// rate, by the next epoch's start, so every run starts with a full bucket
// and the plan never waits for bandwidth. The rate still holds over time: in any window of T
// seconds at most rate x (T + epoch) bytes move, and the planner never
// plans more than rate x epoch in one epoch. (Before, the burst was a
// tenth of a second, so a run could move burst + rate x deadline, 0.6 of
// the plan at a 1 s epoch, and the moves planned last were not executed
// in every epoch.)
func moverConfig(cfg *Config) numa.MoverConfig {
	b := numa.Budgets{
		BytesPerSec:   cfg.Budgets.MigrateBytesPerSec,
		PagesPerEpoch: cfg.Budgets.PagesPerEpoch,
	}
	if b.BytesPerSec > 0 {
		b.Burst = max(epochBytes(cfg), b.BytesPerSec/10, int64(numa.DefaultBatch*numa.PageSize))
	}
	return numa.MoverConfig{Budgets: b}
}

// epochBytes is what migrate_bytes_per_sec allows in one epoch (at least a
// page); 0 without a limit.
func epochBytes(cfg *Config) int64 {
	if cfg.Budgets.MigrateBytesPerSec <= 0 {
		return 0
	}
	return max(cfg.Budgets.MigrateBytesPerSec*int64(cfg.Epoch)/1e9, int64(numa.PageSize))
}
