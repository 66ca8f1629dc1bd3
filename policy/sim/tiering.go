package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/plan"
	"github.com/kvtier/kvtier/policy/trace"
)

// tiering is the daemon's model: tier 0 is the fast tier, tier 1 the slow
// one (its capacity and any further tiers are not modelled), the sampler
// sees a share of the accesses and the planner moves blocks every epoch.
type tiering struct {
	cfg     *Config
	h       Hierarchy
	blocks  []blk // tier -1: not tracked by the planner
	pl      *plan.Planner
	rng     *rand.Rand
	res     Result
	lat     hist
	tenants tenantHits
	util    float64
	fastCap int64
}

func newTiering(cfg *Config, t *Trace) (*tiering, error) {
	h := cfg.hierarchy()
	if len(h.Tiers) < 2 {
		return nil, fmt.Errorf("%w: tiering mode needs two tiers, preset %s has %d", ErrBadConfig, h.Preset, len(h.Tiers))
	}
	pl, err := plan.New(plan.Config{
		Policy: cfg.Policy, Seed: cfg.Seed, Cooldown: cfg.Cooldown, PromoteMin: cfg.PromoteMin,
		Decay: cfg.Decay, Reuse: cfg.Reuse, Headroom: cfg.Headroom,
		Budget: plan.Budget{FastBytes: h.Tiers[0].Capacity, MoveBlocks: cfg.MoveBlocks, MoveBytes: cfg.MoveBytes},
	})
	if err != nil {
		return nil, err
	}
	s := &tiering{cfg: cfg, h: h, blocks: make([]blk, t.Blocks()), pl: pl,
		rng: rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6b767469)), fastCap: h.Tiers[0].Capacity}
	for i := range s.blocks {
		s.blocks[i] = blk{b: policy.Block{ID: uint64(i)}, tier: -1, evictedAt: -1}
	}
	s.res.Hits = make([]int64, len(h.Tiers))
	return s, nil
}

func (s *tiering) run(t *Trace) error {
	var step int64
	var err error
	epoch, rate := int64(s.cfg.epoch()), s.cfg.sampleRate()
	rerr := t.replay(nil, func(op trace.Op, id, _, _ uint32, rm *policy.Meta) {
		if err != nil {
			return
		}
		x := &s.blocks[id]
		switch op {
		case trace.OpAccess:
			err = s.access(x, rm, step, rate)
			step++
			if err == nil && step%epoch == 0 {
				err = s.epoch(step)
			}
		case trace.OpFree:
			if x.tier >= 0 {
				x.tier, x.evictedAt = -1, -1
				err = s.pl.Untrack(x.b.ID)
			}
		case trace.OpUpdate:
			if x.tier >= 0 {
				m := *rm
				m.Size = x.b.Meta.Size
				err = s.pl.Update(x.b.ID, m, step)
			}
		}
	})
	if rerr != nil {
		return rerr
	}
	if err != nil {
		return fmt.Errorf("tiering replay of %s: %w", t.Name, err)
	}
	finishResult(&s.res, &s.lat, &s.tenants, s.util)
	return nil
}

func (s *tiering) access(x *blk, rm *policy.Meta, now int64, rate float64) error {
	s.res.Accesses++
	id := x.b.ID
	var lat float64
	if x.tier < 0 {
		// First touch: the allocator places the block in DRAM while it
		// has room, else in the slow tier.
		m := *rm
		m.Size = s.cfg.blockBytes(m.Size)
		x.b.Meta = m
		fast := s.pl.FastBytes()+m.Size <= s.fastCap
		x.tier = 1
		if fast {
			x.tier = 0
		}
		s.res.Misses++
		s.res.BytesDemand += m.Size
		lat = s.h.coldMs(int(x.tier), m.Size, s.cfg.Quant)
		if err := s.pl.Track(&x.b, fast, now); err != nil {
			return err
		}
	} else {
		s.res.Repromotions += x.reaccess(now, s.cfg.horizon())
		s.res.Hits[x.tier]++
		lat = s.h.readMs(int(x.tier), x.b.Meta.Size)
	}
	if rate >= 1 || s.rng.Float64() < rate {
		if err := s.pl.Access(id, 1, now); err != nil {
			return err
		}
	}
	s.lat.add(lat)
	s.tenants.add(x.b.Meta.Tenant, x.tier == 0)
	s.util += float64(s.pl.FastBytes()) / float64(s.fastCap)
	return nil
}

// epoch plans and executes one epoch's moves; every move succeeds.
func (s *tiering) epoch(now int64) error {
	s.res.Epochs++
	p := s.pl.Plan(now)
	for _, m := range p.Demote {
		x := &s.blocks[m.Block.ID]
		size := x.b.Meta.Size
		s.res.Evictions++
		s.res.BytesDemand += size
		s.res.MigrationMs += s.h.transferMs(0, 1, size, s.cfg.Quant)
		x.tier, x.evictedAt = 1, now
		if err := s.pl.Done(x.b.ID, false, true, now); err != nil {
			return err
		}
	}
	for _, m := range p.Promote {
		x := &s.blocks[m.Block.ID]
		size := x.b.Meta.Size
		s.res.BytesDemand += size
		s.res.MigrationMs += s.h.transferMs(1, 0, size, s.cfg.Quant)
		x.tier = 0
		if err := s.pl.Done(x.b.ID, true, true, now); err != nil {
			return err
		}
	}
	return nil
}
