package daemon

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// TestTenantsBounded: a tenant is dropped (daemon names and planner state)
// when its last region goes, unless it has a configured budget; at most
// max_tenants named tenants exist at once, and a registration for one
// more is refused with 409 naming the limit. Before, every tenant ever
// seen stayed for the daemon's life.
func TestTenantsBounded(t *testing.T) {
	d, _ := fixtureDaemon(t, `
kernel_tiering = "report"
sampler "fault" {}
max_tenants = 2
budgets {
  tenant "q" {
    fast_bytes = "1MiB"
  }
}
`)
	wl := startWorkload(t)
	register := func(tenant string, second bool) (uint64, error) {
		return registerHalf(d, wl, tenant, second)
	}
	tenantsOf := func() (names []string, planner int) { return daemonTenants(d) }
	a, err := register("a", false)
	if err != nil {
		t.Fatal(err)
	}
	// q (configured) and a: the limit of 2 is reached.
	_, err = register("b", true)
	var re *reqError
	if !errors.As(err, &re) || re.code != http.StatusConflict || !strings.Contains(re.msg, "max_tenants = 2") {
		t.Fatalf("registering a third tenant: %v, want 409 naming max_tenants", err)
	}
	if names, _ := tenantsOf(); len(names) != 3 { // "", q, a
		t.Errorf("tenants after the refused registration: %q, want the unnamed one, q and a", names)
	}
	if err := d.removeRegion(a); err != nil {
		t.Fatal(err)
	}
	names, planned := tenantsOf()
	if len(names) != 2 || planned != 0 {
		t.Errorf("after a's last region went: tenants %q and %d in the planner, want the unnamed one and q, none planned", names, planned)
	}
	b, err := register("b", true)
	if err != nil {
		t.Fatalf("registering tenant b once a is gone: %v", err)
	}
	q, err := register("q", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{b, q} {
		if err := d.removeRegion(id); err != nil {
			t.Fatal(err)
		}
	}
	if names, _ := tenantsOf(); len(names) != 2 {
		t.Errorf("after b's and q's regions went: tenants %q, want the unnamed one and q (configured)", names)
	}
	d.mu.Lock()
	idx := d.tenants["q"].idx
	d.mu.Unlock()
	if idx == 0 {
		t.Error("tenant q has number 0, the unnamed tenant's")
	}
}

// registerHalf registers the first half of wl's buffer, or with second
// the second half, as a region of tenant, and returns its ID.
func registerHalf(d *Daemon, wl *testutil.Workload, tenant string, second bool) (uint64, error) {
	half := wl.Size / 2
	addr := wl.Addr
	if second {
		addr += half
	}
	v, err := d.addRegion(regionSpec{pid: wl.PID(), addr: addr, length: half, blockSz: 64 << 10,
		tenant: tenant, source: "test", priority: policy.PriorityNormal, refcount: 1})
	return v.ID, err
}

// daemonTenants returns the names of d's tenants and how many tenants its
// planner holds state for.
func daemonTenants(d *Daemon) (names []string, planner int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for n := range d.tenants {
		names = append(names, n)
	}
	return names, len(d.planner.Stats().Tenants)
}
