package daemon

import (
	"maps"
	"os"
	"testing"

	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// tierSeries returns kvtier_tier_bytes by "tenant/tier".
func tierSeries(t *testing.T, d *Daemon) map[string]float64 {
	t.Helper()
	mfs, err := d.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "kvtier_tier_bytes" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var tenant, tier string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "tenant":
					tenant = l.GetValue()
				case "tier":
					tier = l.GetValue()
				}
			}
			out[tenant+"/"+tier] = m.GetGauge().GetValue()
		}
	}
	return out
}

// TestTierGaugesDropGoneTenants: kvtier_tier_bytes has a fast and a slow
// series per tenant with a region or a budget; a tenant whose last region
// is dropped loses its series, and the others keep theirs across epochs.
func TestTierGaugesDropGoneTenants(t *testing.T) {
	d, _ := fixtureDaemon(t, feedbackConfig)
	d.mu.Lock()
	defer d.mu.Unlock()
	var regions []*region
	for i, tenant := range []string{"a", "b"} {
		proc, err := numa.OpenProcess(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.trackLocked(regionSpec{pid: os.Getpid(), addr: uint64(i+1) << 40, length: 4 * 256 << 10,
			blockSz: 256 << 10, tenant: tenant, source: "test", priority: policy.PriorityNormal, refcount: 1}, proc)
		if err != nil {
			proc.Close()
			t.Fatal(err)
		}
		regions = append(regions, r)
	}
	regions[1].fast.set(3, false)
	d.tierGauges()
	want := map[string]float64{"a/fast": 1 << 20, "a/slow": 0, "b/fast": 3 * 256 << 10, "b/slow": 256 << 10}
	if got := tierSeries(t, d); !maps.Equal(got, want) {
		t.Fatalf("tier_bytes %v, want %v", got, want)
	}
	d.dropRegionLocked(regions[1], "")
	d.tierGauges()
	want = map[string]float64{"a/fast": 1 << 20, "a/slow": 0}
	if got := tierSeries(t, d); !maps.Equal(got, want) {
		t.Errorf("after dropping b: tier_bytes %v, want %v", got, want)
	}
}
