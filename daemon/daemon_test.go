package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy/plan"
)

const testConfig = `
epoch = "100ms"
sampler "sw-page-faults" {}
policy "lru" {}
budgets {
  tenant "alice" { fast_bytes = "64MiB" }
}
`

// TestDaemonRoundTrip registers a workload's buffer with a daemon started
// in the test and drives every region call, the status, topology and
// policy queries, the metrics and the event stream once.
func TestDaemonRoundTrip(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	c := td.client

	eventTypes := collectEvents(t, c)
	reg, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size,
		BlockSize: 256 << 10, Tenant: "alice", Class: api.ClassThinkActive, Priority: api.PriorityHigh,
		Pinned: []api.Range{{Offset: 0, Length: 256 << 10}}, Name: "kv"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	atReg, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if reg.ID == 0 || reg.Blocks != int(wl.Size/(256<<10)) || reg.Tenant != "alice" || reg.Class != "think_active" ||
		reg.Priority != "high" || reg.FastBytes != wl.Size || reg.Source != "api" {
		t.Fatalf("registered region = %+v", reg)
	}

	// Sampling: the workload keeps touching its buffer; the samplers see
	// faults only on first touch, so hints make the access count certain.
	if _, err := c.Hints(ctx, reg.ID, api.HintsRequest{Blocks: []uint64{1, 2, 2, 3}}); err != nil {
		t.Fatalf("Hints: %v", err)
	}
	got, err := c.Region(ctx, reg.ID)
	if err != nil || got.Accesses < 4 {
		t.Fatalf("Region after hints = %+v, %v; want >= 4 accesses", got, err)
	}

	checkRegionUpdates(t, c, reg.ID)

	checkRegionQueries(t, c, reg, wl.PID())

	// The gauges are set at the end of an epoch: wait for one that
	// began after the registration (and for three in all).
	testutil.Eventually(t, 3*time.Second, "epochs to run", func() bool {
		s, err := c.Status(ctx)
		return err == nil && s.Epoch.Count >= max(3, atReg.Epoch.Count+1)
	})
	checkRoundTripMetrics(t, td.d.MetricsAddr(), wl.Size)

	if err := c.Unregister(ctx, reg.ID); err != nil {
		t.Fatalf("Unregister: %v", err)
	}
	if _, err := c.Region(ctx, reg.ID); !isStatus(err, 404) {
		t.Fatalf("Region after Unregister = %v, want 404", err)
	}
	testutil.Eventually(t, 2*time.Second, "registered and unregistered events", func() bool {
		s := eventTypes()
		return strings.Contains(s, api.EventRegionRegistered) && strings.Contains(s, api.EventRegionUnregistered)
	})
}

// collectEvents follows c's event stream until the test ends and returns
// a function giving the types of the events seen so far, comma-separated.
func collectEvents(t *testing.T, c *api.Client) func() string {
	t.Helper()
	var mu sync.Mutex
	var events []api.Event
	evCtx, stopEvents := context.WithCancel(context.Background())
	t.Cleanup(stopEvents)
	go func() {
		_ = c.Events(evCtx, func(ev api.Event) error {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
			return nil
		})
	}()
	time.Sleep(100 * time.Millisecond) // let the subscription start
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		var types []string
		for _, ev := range events {
			types = append(types, ev.Type)
		}
		return strings.Join(types, ",")
	}
}

// checkRegionUpdates updates region id's priority, refcount and class, and
// checks that think_complete does not go back to think_active.
func checkRegionUpdates(t *testing.T, c *api.Client, id uint64) {
	t.Helper()
	ctx := context.Background()
	tc := api.ClassThinkComplete
	up, err := c.Update(ctx, id, api.UpdateRequest{Priority: ptr("low"), RefCount: ptr(int32(3)),
		ThinkComplete: []api.Range{{Offset: 1 << 20, Length: 1 << 20}}})
	if err != nil || up.Priority != "low" || up.RefCount != 3 {
		t.Fatalf("Update = %+v, %v", up, err)
	}
	if _, err := c.Update(ctx, id, api.UpdateRequest{Class: &tc}); err != nil {
		t.Fatalf("Update class: %v", err)
	}
	back := api.ClassThinkActive
	if _, err := c.Update(ctx, id, api.UpdateRequest{Class: &back}); !isStatus(err, 400) {
		t.Fatalf("think_complete -> think_active = %v, want 400 (one-way)", err)
	}
}

// checkRegionQueries checks reg's placement, by region and by its process
// pid, and the status, topology and policy of the daemon holding it alone.
func checkRegionQueries(t *testing.T, c *api.Client, reg api.Region, pid int) {
	t.Helper()
	ctx := context.Background()
	pl, err := c.Placement(ctx, reg.ID)
	if err != nil {
		t.Fatalf("Placement: %v", err)
	}
	if len(pl.Blocks) != reg.Blocks || pl.FastBlocks+pl.SlowBlocks+pl.Unmapped != reg.Blocks || pl.FastBlocks == 0 {
		t.Fatalf("placement = %+v", pl)
	}
	if pls, err := c.PlacementByPID(ctx, pid); err != nil || len(pls) != 1 {
		t.Fatalf("PlacementByPID = %v, %v", pls, err)
	}

	st, err := c.Status(ctx)
	if err != nil || st.Regions != 1 || st.Version != "test" || len(st.Samplers) != 1 {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	topo, err := c.Topology(ctx)
	if err != nil || len(topo.Nodes) == 0 || topo.Nodes[0].Class != "fast" {
		t.Fatalf("Topology = %+v, %v", topo, err)
	}
	pol, err := c.Policy(ctx)
	if err != nil || pol.Name != "lru" || pol.Budgets.Tenants["alice"] != 64<<20 {
		t.Fatalf("Policy = %+v, %v", pol, err)
	}
}

// checkRoundTripMetrics checks the metrics at addr once epochs have run
// with the one region of alice, size bytes all in the fast tier, hinted
// four blocks.
func checkRoundTripMetrics(t *testing.T, addr string, size uint64) {
	t.Helper()
	if v := metric(t, addr, "kvtier_hint_blocks_total"); v != 4 {
		t.Errorf("kvtier_hint_blocks_total = %v, want 4", v)
	}
	if v := metric(t, addr, "kvtier_regions"); v != 1 {
		t.Errorf("kvtier_regions = %v, want 1", v)
	}
	if v := metric(t, addr, `kvtier_tier_bytes{tenant="alice",tier="fast"}`); v != float64(size) {
		t.Errorf("alice fast bytes = %v, want %d", v, size)
	}
	for _, c := range []struct {
		sample string
		want   float64
	}{
		{`kvtier_tenant_fast_quota_bytes{tenant="alice"}`, 64 << 20},
		{`kvtier_tenant_fast_used_bytes{tenant="alice"}`, float64(size)},
		{`kvtier_tenant_fast_quota_usage_ratio{tenant="alice"}`, float64(size) / (64 << 20)},
	} {
		if v := metric(t, addr, c.sample); v != c.want {
			t.Errorf("%s = %v, want %v", c.sample, v, c.want)
		}
	}
	if v := metric(t, addr, "kvtier_policy_decision_seconds_count"); v < 3 {
		t.Errorf("decision histogram count = %v, want >= 3", v)
	}
	if v := metric(t, addr, `kvtier_migrated_pages_total{direction="demote"}`); v != 0 {
		t.Errorf("demoted pages on a one-node host = %v, want 0", v)
	}
}

func TestDaemonSamplesWorkload(t *testing.T) {
	td := startDaemon(t, testConfig)
	ctx := context.Background()
	// A child's fresh buffer: memory of this process may have been
	// touched by earlier tests, and reused heap pages do not fault.
	wl := startLazyWorkload(t)
	reg, err := td.client.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: 4 << 20,
		BlockSize: 64 << 10})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	wl.FirstTouch(t) // first touch: one page fault per page inside the watched region
	testutil.Eventually(t, 5*time.Second, "sampled accesses", func() bool {
		r, err := td.client.Region(ctx, reg.ID)
		return err == nil && r.Accesses > 0
	})
	if v := metric(t, td.d.MetricsAddr(), `kvtier_sampler_events_total{sampler="sw-page-faults"}`); v <= 0 {
		t.Errorf("sampler events = %v, want > 0", v)
	}
}

func TestDaemonDropsExitedProcess(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	reg, err := td.client.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	wl.Kill()
	testutil.Eventually(t, 3*time.Second, "the region of the exited process to go", func() bool {
		_, err := td.client.Region(ctx, reg.ID)
		return isStatus(err, 404)
	})
	if v := metric(t, td.d.MetricsAddr(), "kvtier_regions_dropped_total"); v != 1 {
		t.Errorf("kvtier_regions_dropped_total = %v, want 1", v)
	}
	st, _ := td.client.Status(ctx)
	if st.Samplers[0].Watched != 0 {
		t.Errorf("sampler still watches %d regions of the exited process", st.Samplers[0].Watched)
	}
}

func TestDaemonReload(t *testing.T) {
	td := startDaemon(t, testConfig)
	wl := startWorkload(t)
	ctx := context.Background()
	reg, err := td.client.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size})
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(td.dir, "bad.hcl")
	os.WriteFile(bad, []byte("policy \"nope\" {}\n"), 0o600)
	if td.d.ReloadFile(bad) {
		t.Fatal("a bad config reloaded")
	}
	if !strings.Contains(td.logs.String(), "bad.hcl:1:1: Unknown policy") {
		t.Errorf("log does not say why the reload failed:\n%s", td.logs.String())
	}
	mover := td.d.mover
	good := filepath.Join(td.dir, "good.hcl")
	os.WriteFile(good, []byte("epoch = \"50ms\"\npolicy \"fifo\" {}\nbudgets {\n  pages_per_epoch = 128\n"+
		"  migrate_bytes_per_sec = \"64MiB\"\n}\nplanner {\n  decay = 0.25\n}\n"), 0o600)
	testutil.Eventually(t, 3*time.Second, "a quota gauge for the configured tenant alice", func() bool {
		_, ok := scrape(t, td.d.MetricsAddr(), `kvtier_tenant_fast_quota_bytes{tenant="alice"}`)
		return ok
	})
	if !td.d.ReloadFile(good) {
		t.Fatalf("good config did not reload:\n%s", td.logs.String())
	}
	if pc := td.d.planner.Config(); pc.Decay != 0.25 || pc.Cooldown != int64(100*time.Millisecond) {
		t.Errorf("planner after reload: decay %v cooldown %v; want 0.25 and two 50ms epochs", pc.Decay, time.Duration(pc.Cooldown))
	}
	testutil.Eventually(t, 3*time.Second, "the quota gauges of the removed tenant to go", func() bool {
		_, ok := scrape(t, td.d.MetricsAddr(), `kvtier_tenant_fast_quota_bytes{tenant="alice"}`)
		return !ok
	})
	td.d.mu.Lock()
	same := td.d.mover == mover
	td.d.mu.Unlock()
	if b := mover.Budgets(); !same || b.PagesPerEpoch != 128 || b.BytesPerSec != 64<<20 {
		t.Errorf("after reload: same mover %v, budgets %+v; want the running mover's budgets changed in place", same, b)
	}
	pol, _ := td.client.Policy(ctx)
	if pol.Name != "fifo" || pol.Epoch != "50ms" || pol.Budgets.PagesPerEpoch != 128 ||
		pol.Planner != (api.PlannerParams{Decay: 0.25, Cooldown: "100ms", PromoteMin: 1, ReuseEpochs: 8,
			Headroom: plan.DefaultHeadroom, ReconcileEpochs: DefaultReconcileEpochs, ReconcilePages: DefaultReconcilePages}) {
		t.Fatalf("policy after reload = %+v", pol)
	}
	if r, err := td.client.Region(ctx, reg.ID); err != nil || r.Blocks != reg.Blocks {
		t.Fatalf("region after reload = %+v, %v", r, err)
	}
	if v := metric(t, td.d.MetricsAddr(), `kvtier_config_reloads_total{result="error"}`); v != 1 {
		t.Errorf("failed reloads = %v, want 1", v)
	}
}

// TestDaemonDetachesBPF checks that stopping the daemon leaves no BPF
// program or link open in this process.
func TestDaemonDetachesBPF(t *testing.T) {
	td := startDaemon(t, testConfig)
	if n := testutil.BPFFDs(t); n == 0 {
		t.Fatal("no BPF fds while the daemon runs: the check below would prove nothing")
	}
	td.stop()
	if n := testutil.BPFFDs(t); n != 0 {
		t.Fatalf("%d BPF fds left open after the daemon stopped", n)
	}
}

// bpfFDs counts this process's fds on BPF programs, links and maps.
func isStatus(err error, code int) bool {
	var se *api.StatusError
	return errors.As(err, &se) && se.Code == code
}

func ptr[T any](v T) *T { return &v }
