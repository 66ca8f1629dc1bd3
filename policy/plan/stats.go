package plan

import "sort"

// TenantStats is one tenant's fast-tier usage.
type TenantStats struct {
	Tenant     uint32
	Blocks     int   // tracked blocks
	FastBlocks int   // blocks in the fast tier
	FastBytes  int64 // bytes in the fast tier
	Quota      int64 // fast-tier quota, 0 for none
}

// Stats is a snapshot of the planner's accounting.
type Stats struct {
	Tracked      int
	FastBytes    int64 // bytes in the fast tier, pending demotions included
	PendingIn    int64 // bytes of promotions awaiting Done
	PendingOut   int64 // bytes of demotions awaiting Done
	CapacityUsed float64
	Tenants      []TenantStats // sorted by tenant
}

// Stats returns the planner's current accounting.
func (p *Planner) Stats() Stats {
	s := Stats{Tracked: p.ids.n, FastBytes: p.used, PendingIn: p.incoming, PendingOut: p.outgoing}
	if c := p.capacity(); c > 0 {
		s.CapacityUsed = float64(p.used) / float64(c)
	}
	for _, t := range p.tenants {
		s.Tenants = append(s.Tenants, TenantStats{Tenant: t.id, Blocks: t.blocks, FastBlocks: t.fast,
			FastBytes: t.used, Quota: p.cfg.quota(t.id)})
	}
	sort.Slice(s.Tenants, func(i, j int) bool { return s.Tenants[i].Tenant < s.Tenants[j].Tenant })
	return s
}

// FastBytes returns the bytes of tracked blocks in the fast tier, pending
// demotions included: Stats().FastBytes without the per-tenant snapshot.
func (p *Planner) FastBytes() int64 { return p.used }
