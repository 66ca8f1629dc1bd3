package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (rerun with -update if the change is intended)\ngot:\n%s\nwant:\n%s",
			path, got, want)
	}
	for i, line := range strings.Split(string(got), "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("%s:%d has trailing spaces: %q", path, i+1, line)
		}
	}
}

// utc makes the local zone UTC for the duration of a test, so that times
// in golden files do not depend on the machine.
func utc(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
}

var fixtureTime = time.Date(2026, 3, 14, 15, 9, 26, 535e6, time.UTC)

func fixtureStatus() api.Status {
	return api.Status{Version: "1.2.0", PID: 4242, Started: fixtureTime, UptimeSeconds: 3*3600 + 125,
		ConfigFile: "/etc/kvtier/kvtier.hcl", Policy: "regret_aware:horizon=24,weight=6",
		Budgets: api.Budgets{FastBytes: 64 << 30, Tenants: map[string]int64{"alice": 32 << 30, "bob": 16 << 30},
			MigrateBytesPerSec: 256 << 20, PagesPerEpoch: 65536},
		BudgetUse: api.BudgetUse{FastBytes: 40 << 30, PagesMoved: 2048, BytesPerSec: 8 << 20,
			FastCapacity: 64 << 30, DeferredMoves: 3},
		Samplers: []api.SamplerStatus{{Name: "sw-page-faults", Events: 120000, Drops: 0, Watched: 3},
			{Name: "damon", Events: 5000, Drops: 40, Watched: 1, KernelCPUSeconds: 84.5}},
		Epoch:      api.EpochStatus{Length: "1s", Count: 11045, LastSeconds: 0.0123, DecisionSeconds: 0.00042},
		CPUSeconds: 61.25,
		Regions:    3,
		Tenants: []api.TenantStatus{{Name: "alice", Budget: 32 << 30, FastBytes: 30 << 30, SlowBytes: 2 << 30, Regions: 2},
			{Name: "bob", Budget: 16 << 30, FastBytes: 10 << 30, SlowBytes: 6 << 30, Regions: 1}},
		Moving:        true,
		KernelTiering: api.KernelTiering{Mode: "disable", NUMABalancing: "0", Demotion: "false", Action: "turned off numa_balancing"},
	}
}

func TestStatusGolden(t *testing.T) {
	first := fixtureStatus()
	last := fixtureStatus()
	last.UptimeSeconds += 2
	last.Samplers[0].Events += 3000
	last.Samplers[1].Events += 100
	last.Samplers[1].Drops += 10
	var b bytes.Buffer
	if err := writeStatus(&b, newStatusReport(first, last)); err != nil {
		t.Fatal(err)
	}
	golden(t, "status.golden", b.Bytes())
}

func fixtureRegions() []api.Region {
	return []api.Region{
		{ID: 1, PID: 3100, Addr: 0x7f0000000000, Length: 1 << 30, BlockSize: 2 << 20, Blocks: 512, Tenant: "alice",
			Class: "think_active", Priority: "high", RefCount: 1, Pinned: []api.Range{{Offset: 0, Length: 4 << 20}},
			Name: "kv-cache", Source: "api", Registered: fixtureTime, FastBytes: 1 << 30, Accesses: 991234},
		{ID: 2, PID: 3100, Addr: 0x7f4000000000, Length: 512 << 20, BlockSize: 2 << 20, Blocks: 256, Tenant: "alice",
			Class: "think_complete", Priority: "normal", RefCount: 3, Pinned: []api.Range{}, Source: "rule:vllm",
			Registered: fixtureTime, FastBytes: 128 << 20, SlowBytes: 384 << 20, Accesses: 1200},
		{ID: 7, PID: 3377, Addr: 0x7e0000000000, Length: 256 << 20, BlockSize: 1 << 20, Blocks: 256, Tenant: "",
			Class: "none", Priority: "low", RefCount: 1, Source: "api", Registered: fixtureTime, SlowBytes: 256 << 20},
	}
}

func TestRegionsGolden(t *testing.T) {
	var b bytes.Buffer
	if err := writeRegions(&b, fixtureRegions()); err != nil {
		t.Fatal(err)
	}
	b.WriteString("--- empty\n")
	if err := writeRegions(&b, nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "regions.golden", b.Bytes())
}

// fixturePlacement has hot fast blocks, a cold slow tail with a hot slow
// block (a promotion candidate) and blocks not present yet.
func fixturePlacement(r api.Region) api.Placement {
	p := api.Placement{Region: r.ID, PID: r.PID, BlockSize: r.BlockSize, Nodes: map[string]int{}}
	for i := 0; i < r.Blocks; i++ {
		b := api.BlockPlacement{Node: 0, Tier: "fast"}
		switch {
		case i >= r.Blocks-20:
			b = api.BlockPlacement{Node: -1, Tier: "none"}
		case i >= r.Blocks/2:
			b = api.BlockPlacement{Node: 1, Tier: "slow"}
		}
		switch {
		case i < 16:
			b.Heat = 90
		case i == r.Blocks/2+40:
			b.Heat = 100
		case i%7 == 0 && b.Node >= 0:
			b.Heat = 12
		}
		if b.Node < 0 {
			p.Unmapped++
		} else {
			p.Nodes[map[int]string{0: "0", 1: "1"}[b.Node]]++
			if b.Tier == "fast" {
				p.FastBlocks++
			} else {
				p.SlowBlocks++
			}
		}
		p.Blocks = append(p.Blocks, b)
	}
	return p
}

func TestPlacementGolden(t *testing.T) {
	var krs []kvRegion
	for _, r := range fixtureRegions()[:2] {
		p := fixturePlacement(r)
		krs = append(krs, kvRegion{Region: r, Placement: p, Strip: newHeatStrip(p.Blocks, defaultStripWidth)})
	}
	var b bytes.Buffer
	if err := writeKVRegions(&b, krs); err != nil {
		t.Fatal(err)
	}
	golden(t, "placement_region.golden", b.Bytes())
	for i, line := range strings.Split(b.String(), "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line %d is %d columns, more than 80: %q", i+1, len([]rune(line)), line)
		}
	}
}

func TestHeatStrip(t *testing.T) {
	fast := func(h uint32) api.BlockPlacement { return api.BlockPlacement{Node: 0, Tier: "fast", Heat: h} }
	slow := func(h uint32) api.BlockPlacement { return api.BlockPlacement{Node: 1, Tier: "slow", Heat: h} }
	none := api.BlockPlacement{Node: -1, Tier: "none"}
	tests := []struct {
		name   string
		blocks []api.BlockPlacement
		width  int
		want   string
		group  int
	}{
		{"one per block", []api.BlockPlacement{fast(10), fast(4), fast(0), slow(10), slow(1), slow(0), none}, 64, "#+-Oo._", 1},
		{"groups take the hottest block", []api.BlockPlacement{fast(0), fast(10), slow(0), slow(0)}, 2, "#.", 2},
		{"majority tier wins", []api.BlockPlacement{fast(0), slow(0), slow(0), fast(0), fast(0), slow(0)}, 2, ".-", 3},
		{"present beats absent", []api.BlockPlacement{none, none, slow(0)}, 1, ".", 3},
		{"no heat anywhere is cold", []api.BlockPlacement{fast(0), slow(0)}, 8, "-.", 1},
		{"last group may be short", []api.BlockPlacement{fast(1), fast(1), fast(1), slow(1), slow(1)}, 2, "#O", 3},
		{"empty region", nil, 64, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newHeatStrip(tt.blocks, tt.width)
			if s.Chars != tt.want || s.GroupBlocks != tt.group {
				t.Errorf("strip = %q (%d per char), want %q (%d per char)", s.Chars, s.GroupBlocks, tt.want, tt.group)
			}
			if len(s.Chars) > tt.width {
				t.Errorf("strip is %d wide, more than %d", len(s.Chars), tt.width)
			}
		})
	}
	big := make([]api.BlockPlacement, 100000)
	if s := newHeatStrip(big, defaultStripWidth); len(s.Chars) > defaultStripWidth || len(s.Chars) < defaultStripWidth-1 {
		t.Errorf("100000 blocks drawn in %d characters, want about %d", len(s.Chars), defaultStripWidth)
	}
}

func fixtureEvents() []api.Event {
	b := uint64(17)
	return []api.Event{
		{Seq: 1, Time: fixtureTime, Type: api.EventRegionRegistered, Region: 1, PID: 3100, Tenant: "alice", Blocks: 512,
			Bytes: 1 << 30, Reason: "api"},
		{Seq: 2, Time: fixtureTime.Add(time.Second), Type: api.EventMigration, Region: 2, PID: 3100, Tenant: "alice",
			Direction: "demote", Blocks: 4, Pages: 2048, Bytes: 8 << 20, Reason: "cold"},
		{Seq: 3, Time: fixtureTime.Add(2 * time.Second), Type: api.EventRegret, Region: 2, PID: 3100, Tenant: "alice",
			Block: &b, Reason: "demoted block accessed again within the regret horizon"},
		{Seq: 4, Time: fixtureTime.Add(3 * time.Second), Type: api.EventCrossTenantEvict, Tenant: "bob", By: "alice",
			Blocks: 2, Bytes: 4 << 20, Reason: "another tenant needed fast-tier room"},
	}
}

func TestEventsAndTopGolden(t *testing.T) {
	utc(t)
	var b bytes.Buffer
	node := 1
	full := api.Event{Seq: 5, Time: fixtureTime.Add(4 * time.Second), Type: api.EventNodeFull, Node: &node,
		Reason: "demotions held for 2 epochs"}
	for _, ev := range append(fixtureEvents(), full) {
		b.WriteString(eventLine(ev) + "\n")
	}
	golden(t, "events.golden", b.Bytes())

	rs := fixtureRegions()
	prev := topSample{at: fixtureTime, status: fixtureStatus(), regions: rs}
	cur := topSample{at: fixtureTime.Add(2 * time.Second), status: fixtureStatus(), regions: append([]api.Region{}, rs...)}
	cur.regions[1].Accesses += 5000
	cur.regions[0].Accesses += 300
	cur.status.Epoch.Count += 2
	fr := newTopFrame(prev, cur, 10)
	counts := &topCounts{}
	for _, ev := range fixtureEvents() {
		_ = counts.add(ev)
	}
	if err := counts.take(&fr, fr.IntervalSeconds); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	b.WriteString(topLine(fr) + "\n--- screen\n")
	b.WriteString(strings.Join(topScreen(fr, 24), "\n") + "\n")
	golden(t, "top.golden", b.Bytes())
	if fr.Hottest[0].ID != 2 || fr.Hottest[0].AccessesPerSec != 2500 || fr.MigrationsPerSec != 2 || fr.Regrets != 1 {
		t.Errorf("frame = %+v", fr)
	}
	var next topFrame
	_ = counts.take(&next, 1)
	if next.Regrets != 0 || next.RegretsTotal != 1 || next.MigrationsPerSec != 0 {
		t.Errorf("counts not reset between frames: %+v", next)
	}
	if short := topScreen(fr, 10); len(short) > 12 {
		t.Errorf("a 10-row screen has %d lines", len(short))
	}
}
