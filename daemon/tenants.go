package daemon

import (
	"fmt"
	"net/http"
)

// Tenants. The daemon numbers tenants for the planner (and traces) in
// order of first use and never reuses a number. A tenant exists while it
// has regions or a configured budget: when its last region goes and it has
// no budget, its name, number and planner state (accounting and bucket
// policies) are dropped, so tenants that come and go do not make the
// daemon grow. At most max_tenants named tenants exist at once; a
// registration for one more is refused with 409.

// tenantState is one tenant's bookkeeping.
type tenantState struct {
	idx     uint32
	regions int // registered regions
}

// tenantIndex returns the planner's number of tenant name, creating the
// tenant if needed (for configured budgets: no limit applies, the config
// check bounds them).
func (d *Daemon) tenantIndex(name string) uint32 {
	if t, ok := d.tenants[name]; ok {
		return t.idx
	}
	t := &tenantState{idx: d.nextTenant}
	d.nextTenant++
	d.tenants[name] = t
	d.tenantName[t.idx] = name
	return t.idx
}

// acquireTenant counts one more region of tenant name and returns its
// number; a new tenant beyond max_tenants is refused.
func (d *Daemon) acquireTenant(name string) (uint32, error) {
	t, ok := d.tenants[name]
	if !ok {
		if named := len(d.tenants) - 1; named >= d.cfg.MaxTenants {
			return 0, &reqError{http.StatusConflict, fmt.Sprintf(
				"tenant %q: the daemon already tracks max_tenants = %d tenants; unregister the regions of one or raise max_tenants in %s",
				name, d.cfg.MaxTenants, d.configName())}
		}
		d.tenantIndex(name)
		t = d.tenants[name]
	}
	t.regions++
	return t.idx, nil
}

// releaseTenant counts one region of tenant name less and drops the tenant
// when it has neither regions nor a configured budget.
func (d *Daemon) releaseTenant(name string) {
	t, ok := d.tenants[name]
	if !ok {
		return
	}
	t.regions--
	d.dropIdleTenant(name)
}

// dropIdleTenant drops tenant name if it has no region and no budget (the
// unnamed tenant stays).
func (d *Daemon) dropIdleTenant(name string) {
	t, ok := d.tenants[name]
	if !ok || name == "" || t.regions > 0 {
		return
	}
	if _, budget := d.cfg.Budgets.Tenants[name]; budget {
		return
	}
	if err := d.planner.DropTenant(t.idx); err != nil {
		// The planner still tracks blocks of it: a bug; keep the tenant.
		d.metrics.epochErrors.Inc()
		d.log.Named("registry").Error("cannot drop a tenant without regions", "tenant", name, "error", err)
		return
	}
	delete(d.tenants, name)
	delete(d.tenantName, t.idx)
	d.log.Named("registry").Debug("tenant dropped: no regions and no budget", "tenant", name)
}

// configName names the config file for messages.
func (d *Daemon) configName() string {
	if d.cfg.File == "" {
		return "the config"
	}
	return d.cfg.File
}
