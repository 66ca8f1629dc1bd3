package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

// TestCommandsAgainstDaemon runs status, regions, placement, top and
// events against a daemon started in the test, in text and JSON.
func TestCommandsAgainstDaemon(t *testing.T) {
	td := startDaemon(t)
	wl := startWorkload(t)
	reg := td.register(t, wl)
	ctx := context.Background()
	if _, err := td.client.Hints(ctx, reg.ID, api.HintsRequest{Blocks: []uint64{3, 3, 3, 3, 5}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "two epochs", func() bool {
		st, err := td.client.Status(ctx)
		return err == nil && st.Epoch.Count >= 2
	})
	sock := "--socket=" + td.socket

	t.Run("status", func(t *testing.T) { checkStatusCmd(t, sock) })
	t.Run("regions", func(t *testing.T) { checkRegionsCmd(t, sock, reg, wl) })
	t.Run("placement --region", func(t *testing.T) { checkPlacementRegion(t, sock, reg, wl) })
	t.Run("placement --pid with the daemon", func(t *testing.T) { checkPlacementPID(t, sock, reg, wl) })
	t.Run("top", func(t *testing.T) { checkTopCmd(t, sock, reg) })
	t.Run("events", func(t *testing.T) { checkEventsCmd(t, td, wl, reg) })
	t.Run("events are cut off by Ctrl-C", func(t *testing.T) {
		// The text form follows until its context ends; the command's
		// signal handling is checked with the binary in TestTopTerminal.
		ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		f := &clientFlags{socket: td.socket}
		var b strings.Builder
		if err := followEvents(ctx, f, &b, nil, 0); err != nil {
			t.Errorf("followEvents after its context ended = %v, want nil", err)
		}
	})
}

// checkStatusCmd checks status in text and JSON against the daemon at
// sock, which holds one region of tenant alice.
func checkStatusCmd(t *testing.T, sock string) {
	code, out, errs := runCLI("status", sock, "--rate-window=200ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"kvtier daemon test, pid", "policy:           lru", "no: one memory node",
		"regions:          1", "TENANT  BUDGET", "alice   64 MiB  8 MiB", "sw-page-faults", "(rates over 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI("status", sock, "--json", "--rate-window=0")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep statusReport
	decodeStrict(t, out, &rep, "version", "pid", "uptime_seconds", "policy", "budgets.fast_bytes",
		"budget_use.fast_bytes", "samplers.name", "samplers.events", "samplers.drops", "epoch.count",
		"epoch.decision_seconds", "tenants.name", "healthy", "problems", "sampler_rates.events_per_sec",
		"sampler_rates.drops_per_sec")
	if rep.Regions != 1 || !rep.SingleNode || rep.Policy != "lru" || len(rep.SamplerRates) != 1 || rep.RateSeconds <= 0 {
		t.Errorf("status JSON = %+v", rep)
	}
}

// checkRegionsCmd checks regions in text and JSON, filtered by pid and by
// an unknown tenant: reg, of wl, is the only region.
func checkRegionsCmd(t *testing.T, sock string, reg api.Region, wl *workload) {
	code, out, errs := runCLI("regions", sock)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(out, "\n")
	want := fmt.Sprintf("%d   %d  alice   think_active  high      1     8 MiB  32      8 MiB  0 B   256 KiB", reg.ID, wl.pid())
	if !strings.HasPrefix(lines[0], "ID  PID") || !strings.HasPrefix(lines[1], want) || !strings.Contains(out, "1 region, 8 MiB") {
		t.Errorf("regions output, want a row starting %q:\n%s", want, out)
	}
	code, out, errs = runCLI("regions", sock, "--json", "--pid", fmt.Sprint(wl.pid()))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rs []api.Region
	decodeStrict(t, out, &rs, "id", "pid", "addr", "length", "block_size", "blocks", "tenant", "class",
		"priority", "refcount", "pinned", "source", "fast_bytes", "slow_bytes", "accesses")
	if len(rs) != 1 || rs[0].ID != reg.ID || rs[0].Accesses < 5 || rs[0].FastBytes != wl.size {
		t.Errorf("regions JSON = %+v", rs)
	}
	if _, out, _ = runCLI("regions", sock, "--tenant", "bob"); !strings.HasPrefix(out, "no regions") {
		t.Errorf("regions of an unknown tenant:\n%s", out)
	}
}

// checkPlacementRegion checks placement --region in text and JSON, with
// block 3 of reg the hottest, and an unknown region's error.
func checkPlacementRegion(t *testing.T, sock string, reg api.Region, wl *workload) {
	code, out, errs := runCLI("placement", sock, "--region", fmt.Sprint(reg.ID))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{fmt.Sprintf("region %d \"kv\": pid %d, tenant alice", reg.ID, wl.pid()),
		"8 MiB in 32 blocks of 256 KiB", "blocks: node0 fast 32, not present 0", "1 char = 1 block", stripLegend} {
		if !strings.Contains(out, want) {
			t.Errorf("placement lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI("placement", sock, "--region", fmt.Sprint(reg.ID), "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep kvPlacementReport
	decodeStrict(t, out, &rep, "regions.region.id", "regions.placement.nodes", "regions.placement.blocks.tier",
		"regions.placement.blocks.heat", "regions.placement.fast_blocks", "regions.strip.chars",
		"regions.strip.group_blocks")
	kr := rep.Regions[0]
	if kr.Placement.FastBlocks != 32 || len(kr.Strip.Chars) != 32 || strings.Trim(kr.Strip.Chars, "#+-") != "" {
		t.Errorf("placement JSON = %+v", kr)
	}
	if kr.Strip.MaxHeat > 0 && kr.Strip.Chars[3] != glyphFastHot {
		t.Errorf("block 3 got 4 hints and should be the hottest: strip %q, max heat %d", kr.Strip.Chars, kr.Strip.MaxHeat)
	}
	if code, _, errs := runCLI("placement", sock, "--region", "999"); code != ExitError || !strings.Contains(errs, "no such region") {
		t.Errorf("unknown region: exit %d %q", code, errs)
	}
}

// checkPlacementPID checks that placement --pid adds the daemon's region
// reg, and that a --range outside it keeps the mappings but not reg.
func checkPlacementPID(t *testing.T, sock string, reg api.Region, wl *workload) {
	code, out, errs := runCLI("placement", sock, "--pid", fmt.Sprint(wl.pid()), "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep placementReport
	decodeStrict(t, out, &rep, "pid", "comm", "regions", "total.pages", "kv_regions.region.id", "kv_regions.strip.chars")
	if rep.Daemon != "" || len(rep.KV) != 1 || rep.KV[0].Region.ID != reg.ID {
		t.Errorf("placement --pid JSON: daemon %q, kv %+v", rep.Daemon, rep.KV)
	}
	// A range outside the buffer keeps the mappings but not the region.
	stack := ""
	for _, m := range rep.Regions {
		if m.Name == "[stack]" {
			stack = fmt.Sprintf("%x-%x", m.Start, m.End)
		}
	}
	_, out, _ = runCLI("placement", sock, "--pid", fmt.Sprint(wl.pid()), "--range", stack)
	if !strings.Contains(out, "[stack]") || !strings.Contains(out, "no KV regions registered") {
		t.Errorf("placement --range of the stack:\n%s", out)
	}
}

// checkTopCmd checks two plain frames of top and one JSON frame, with
// reg the only and hottest region.
func checkTopCmd(t *testing.T, sock string, reg api.Region) {
	code, out, errs := runCLI("top", sock, "--count=2", "--interval=150ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "regions=1 ") || !strings.Contains(lines[1], fmt.Sprintf("hottest=%d:", reg.ID)) {
		t.Errorf("top plain lines:\n%s", out)
	}
	code, out, errs = runCLI("top", sock, "--count=1", "--interval=150ms", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var fr topFrame
	decodeStrict(t, out, &fr, "time", "epoch", "interval_seconds", "migrations_per_sec", "regret_events",
		"hottest.id", "hottest.accesses_per_sec", "recent_events")
	if fr.Regions != 1 || fr.IntervalSeconds < 0.1 {
		t.Errorf("top JSON = %+v", fr)
	}
}

// checkEventsCmd follows events --count=2 while reg is unregistered and a
// region of bob registered, and checks that both arrive in order and the
// command then exits. It leaves reg unregistered.
func checkEventsCmd(t *testing.T, td *testDaemon, wl *workload, reg api.Region) {
	ctx := context.Background()
	sock := "--socket=" + td.socket
	var mu sync.Mutex
	var code int
	var out, errs string
	done := make(chan struct{})
	go func() {
		c, o, e := runCLI("events", sock, "--json", "--count=2", "--type=region_registered,region_unregistered")
		mu.Lock()
		code, out, errs = c, o, e
		mu.Unlock()
		close(done)
	}()
	time.Sleep(300 * time.Millisecond) // let the subscription start
	if err := td.client.Unregister(ctx, reg.ID); err != nil {
		t.Fatal(err)
	}
	r2, err := td.client.Register(ctx, api.RegisterRequest{PID: wl.pid(), Addr: wl.addr, Length: 1 << 20, Tenant: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("events --count=2 did not exit after two events")
	}
	mu.Lock()
	defer mu.Unlock()
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("events: %q", out)
	}
	for i, want := range []api.Event{{Type: api.EventRegionUnregistered, Region: reg.ID, Tenant: "alice"},
		{Type: api.EventRegionRegistered, Region: r2.ID, Tenant: "bob"}} {
		var ev api.Event
		decodeStrict(t, lines[i], &ev, "seq", "time", "type", "region", "tenant")
		if ev.Type != want.Type || ev.Region != want.Region || ev.Tenant != want.Tenant {
			t.Errorf("event %d = %+v, want %s of region %d (%s)", i, ev, want.Type, want.Region, want.Tenant)
		}
	}
}
