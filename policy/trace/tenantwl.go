package trace

import (
	"fmt"

	"github.com/kvtier/kvtier/policy"
)

func init() {
	registerWorkload("multi_tenant",
		"tenants with their own page ranges, hot sets of different sizes, traffic shares and priorities",
		newMultiTenant, "pages", 120, "steps", 1200, "tenants", 3, "hot", 6)
}

// tenantPriority is tenant k's priority: high, normal, low, high, ...
func tenantPriority(k int) policy.Priority {
	return policy.Priority(2 - k%3)
}

// newMultiTenant builds multi_tenant: the pages are split evenly among
// Tenants tenants (tenant k owns pages [k*Pages/Tenants,
// (k+1)*Pages/Tenants)). Each step picks tenant k with probability
// proportional to 1/(k+1), so tenant 0 issues the most traffic; the tenant
// then reads, with probability 0.8, a page of its hot set (the first
// Hot*(k+1) pages of its range, capped at the range, drawn with Zipf
// popularity), otherwise a uniform page of its range. Tenant k has
// priority high, normal, low for k mod 3 = 0, 1, 2. So a busy tenant with
// a small hot set shares the fast tier with quieter tenants whose hot sets
// are larger and whose priority is lower, which is what quotas, QoS and
// fairness are measured on. Meta: Tenant = k, Priority as above, Pos = the
// page's index within the tenant's range.
func newMultiTenant(p WorkloadParams) (Reader, error) {
	if p.Tenants > p.Pages {
		return nil, fmt.Errorf("%w: tenants=%d: want <= pages (%d)", ErrBadParam, p.Tenants, p.Pages)
	}
	r := newRNG(p.Seed, 7)
	pick := newZipf(p.Tenants) // P(k) proportional to 1/(k+1)
	hot := make([]zipf, p.Tenants)
	start := make([]int, p.Tenants+1)
	for k := range p.Tenants + 1 {
		start[k] = k * p.Pages / p.Tenants
	}
	for k := range p.Tenants {
		hot[k] = newZipf(min(p.Hot*(k+1), start[k+1]-start[k]))
	}
	return &stepFunc{gen: gen{p: p}, step: func(g *gen) Record {
		k := pick.draw(r)
		var pos int
		if r.float() < 0.8 {
			pos = hot[k].draw(r)
		} else {
			pos = r.intn(start[k+1] - start[k])
		}
		page := uint64(start[k] + pos)
		m := g.baseMeta(page)
		m.Tenant, m.Priority, m.Pos = uint32(k), tenantPriority(k), int32(pos)
		return g.access(page, false, m)
	}}, nil
}
