package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
	"github.com/kvtier/kvtier/policy/sim"
	"github.com/kvtier/kvtier/policy/trace"
)

// recorded is what a test learns from reading a recorded trace.
type recorded struct {
	accesses map[uint64]int                 // access records per region
	distinct map[policy.BlockID]bool        // blocks accessed
	updates  map[policy.BlockID]policy.Meta // last update of each block
	frees    map[uint64]int                 // free records per region
	records  int
}

// readRecorded reads a kvtier JSONL trace written by the daemon; the
// reader checks every field and that time never goes back.
func readRecorded(t *testing.T, path string) recorded {
	t.Helper()
	r, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := recorded{accesses: map[uint64]int{}, distinct: map[policy.BlockID]bool{},
		updates: map[policy.BlockID]policy.Meta{}, frees: map[uint64]int{}}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("reading the recorded trace: %v", err)
		}
		got.records++
		region, _ := splitBlockID(rec.Block)
		switch rec.Op {
		case trace.OpAccess:
			got.accesses[region]++
			got.distinct[rec.Block] = true
		case trace.OpUpdate:
			got.updates[rec.Block] = rec.Meta
		case trace.OpFree:
			got.frees[region]++
		}
	}
}

// recordWorkload drives a daemon with two regions while it records to
// path: a child workload whose engine reports a hot set and a scan
// through hints (known counts), and a second child whose first touches of
// its buffer the page-fault sampler sees. It marks four blocks
// think_complete and unregisters the sampled region before stopping.
func recordWorkload(t *testing.T, td *testDaemon, path string) (hinted, sampled api.Region, hints int) {
	t.Helper()
	ctx := context.Background()
	c := td.client
	if _, err := c.StartTrace(ctx, path); err != nil {
		t.Fatalf("StartTrace: %v", err)
	}
	wl := startWorkload(t)
	hinted, err := c.Register(ctx, api.RegisterRequest{PID: wl.PID(), Addr: wl.Addr, Length: wl.Size,
		BlockSize: 256 << 10, Tenant: "alice", Name: "hinted"})
	if err != nil {
		t.Fatal(err)
	}
	lazy := startLazyWorkload(t)
	sampled, err = c.Register(ctx, api.RegisterRequest{PID: lazy.PID(), Addr: lazy.Addr, Length: 2 << 20,
		BlockSize: 64 << 10, Tenant: "bob", Name: "sampled"})
	if err != nil {
		t.Fatal(err)
	}
	lazy.FirstTouch(t) // first touch: page faults inside a watched region
	// Ten rounds of the hot set (blocks 0-3) and four blocks of a scan
	// through the other 28, two hint requests a round.
	scan := 4
	for range 10 {
		blocks := []uint64{0, 1, 2, 3}
		for range 4 {
			blocks = append(blocks, uint64(scan))
			scan = 4 + (scan-3)%28
		}
		if _, err := c.Hints(ctx, hinted.ID, api.HintsRequest{Blocks: blocks[:4]}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Hints(ctx, hinted.ID, api.HintsRequest{Blocks: blocks[4:]}); err != nil {
			t.Fatal(err)
		}
		hints += len(blocks)
		time.Sleep(15 * time.Millisecond)
	}
	if _, err := c.Update(ctx, hinted.ID, api.UpdateRequest{
		ThinkComplete: []api.Range{{Offset: 28 * 256 << 10, Length: 4 * 256 << 10}}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, "sampled accesses of the touched buffer", func() bool {
		r, err := c.Region(ctx, sampled.ID)
		return err == nil && r.Accesses > 0
	})
	if err := c.Unregister(ctx, sampled.ID); err != nil {
		t.Fatal(err)
	}
	st, err := c.StopTrace(ctx)
	if err != nil || st.Path != path || st.Records == 0 {
		t.Fatalf("StopTrace = %+v, %v", st, err)
	}
	return hinted, sampled, hints
}

// TestRecordReplay records a trace from a running daemon, then replays it
// with the simulator (Prepare, Run and Compare of two policies) and with
// the built `kvtier sim --trace`.
func TestRecordReplay(t *testing.T) {
	td := startDaemon(t, testConfig)
	path := filepath.Join(td.dir, "trace.jsonl")
	hinted, sampled, hints := recordWorkload(t, td, path)

	got := readRecorded(t, path)
	checkRecorded(t, got, hinted, sampled, hints)

	tr, err := sim.Prepare(path, func() (trace.Reader, error) { return trace.Open(path) })
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	accesses := got.accesses[hinted.ID] + got.accesses[sampled.ID]
	if tr.Accesses() != accesses || tr.Records() != got.records || tr.Blocks() != len(got.distinct) {
		t.Fatalf("prepared %d accesses, %d records, %d blocks; the file has %d, %d, %d",
			tr.Accesses(), tr.Records(), tr.Blocks(), accesses, got.records, len(got.distinct))
	}
	checkRoomForAll(t, tr, accesses)
	checkTieringReplay(t, tr, accesses)

	t.Run("cli", func(t *testing.T) { checkSimCLI(t, path, accesses) })
}

// checkRecorded checks the trace the daemon recorded: the hinted region's
// accesses are its hints, the sampled region's some, the think_complete
// range four block updates, and a free for each accessed block of the
// sampled region, which was unregistered, and none for the hinted one.
func checkRecorded(t *testing.T, got recorded, hinted, sampled api.Region, hints int) {
	t.Helper()
	if got.accesses[hinted.ID] != hints {
		t.Errorf("recorded %d accesses of the hinted region, want the %d hints", got.accesses[hinted.ID], hints)
	}
	if got.accesses[sampled.ID] == 0 {
		t.Error("no sampled access of the touched buffer was recorded")
	}
	if len(got.updates) != 4 {
		t.Errorf("recorded %d block updates, want 4 (the think_complete range; moves are not recorded)", len(got.updates))
	}
	for id, m := range got.updates {
		if r, i := splitBlockID(id); r != hinted.ID || i < 28 || m.Class != policy.ClassThinkComplete {
			t.Errorf("update of region %d block %d to %v, want blocks 28-31 of region %d think_complete", r, i, m.Class, hinted.ID)
		}
	}
	seenSampled := 0
	for id := range got.distinct {
		if r, _ := splitBlockID(id); r == sampled.ID {
			seenSampled++
		}
	}
	if got.frees[sampled.ID] != seenSampled || got.frees[hinted.ID] != 0 {
		t.Errorf("frees = %v, want %d for the unregistered region (its accessed blocks) and none for the other",
			got.frees, seenSampled)
	}
}

// checkRoomForAll replays tr, of accesses accesses, with a fast tier
// holding every block: only first accesses miss, whatever the policy.
func checkRoomForAll(t *testing.T, tr *sim.Trace, accesses int) {
	t.Helper()
	for _, p := range []string{"lru", "regret_aware"} {
		res, err := sim.Run(sim.Config{Policy: p, Mode: sim.ModeBlocks, CapacityBlocks: tr.Blocks()}, tr)
		if err != nil {
			t.Fatalf("Run %s: %v", p, err)
		}
		want := float64(accesses-tr.Blocks()) / float64(accesses)
		if res.Accesses != int64(accesses) || math.Abs(res.FastHitRatio-want) > 1e-12 {
			t.Errorf("%s with room for every block: %d accesses, hit ratio %v; want %d, %v",
				p, res.Accesses, res.FastHitRatio, accesses, want)
		}
	}
}

// checkTieringReplay replays tr in tiering mode twice with the daemon's
// model (DRAM for eight of the 256KiB blocks, the rest on CXL, the planner
// deciding each epoch) and checks that both comparisons agree.
func checkTieringReplay(t *testing.T, tr *sim.Trace, accesses int) {
	t.Helper()
	h := sim.Hierarchy{Preset: "recorded", Tiers: []sim.Tier{
		{Name: "dram", Capacity: 2 << 20, ReadMs: 100e-6, WriteMs: 100e-6, Bandwidth: 300e6},
		{Name: "cxl", Capacity: 1 << 30, ReadMs: 250e-6, WriteMs: 250e-6, Bandwidth: 32e6}}}
	rs, err := sim.Compare(sim.Config{Mode: sim.ModeTiering, Hierarchy: h, Seed: 1, Epoch: 8},
		[]string{"lru", "regret_aware"}, tr)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	checkCompared(t, rs, accesses)
	again, err := sim.Compare(sim.Config{Mode: sim.ModeTiering, Hierarchy: h, Seed: 1, Epoch: 8},
		[]string{"lru", "regret_aware"}, tr)
	if err != nil || len(again) != len(rs) {
		t.Fatalf("second Compare: %d rows, %v", len(again), err)
	}
	for i := range rs {
		if again[i].FastHitRatio != rs[i].FastHitRatio || again[i].Evictions != rs[i].Evictions {
			t.Errorf("replay is not deterministic: %s hit %v evictions %d, then %v and %d", rs[i].Policy,
				rs[i].FastHitRatio, rs[i].Evictions, again[i].FastHitRatio, again[i].Evictions)
		}
	}
}

// checkSimCLI replays the trace at path, of accesses accesses, with the
// built `kvtier sim --trace` in cache, tiering and blocks modes.
func checkSimCLI(t *testing.T, path string, accesses int) {
	bin := testutil.Binary(t)
	for _, args := range [][]string{
		// The recorded blocks (64-256 KiB) do not fit the kvlab preset's
		// 42 KB tier 0, which kvtier sim refuses: give it room for 8.
		{"sim", "--trace", path, "--policy", "lru,regret_aware", "--fast-bytes", "2MiB", "--json"},
		{"sim", "--trace", path, "--policy", "lru,regret_aware", "--mode", "tiering", "--preset", "cxl",
			"--scenario", "constrained", "--epoch", "8", "--json"},
		{"sim", "--trace", path, "--policy", "lru,regret_aware", "--capacity-blocks", "8", "--json"},
	} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				t.Fatalf("kvtier %v: %v\n%s", args, err, ee.Stderr)
			}
			t.Fatal(err)
		}
		var rs []sim.Result
		if err := json.Unmarshal(out, &rs); err != nil {
			t.Fatalf("kvtier %v printed %q: %v", args, out, err)
		}
		checkCompared(t, rs, accesses)
		if rs[0].Mode == "blocks" {
			// Bélády is optimal for unit blocks of one capacity.
			for _, r := range rs[:2] {
				if r.FastHitRatio > rs[2].FastHitRatio {
					t.Errorf("%s hit ratio %v beats Bélády's %v", r.Policy, r.FastHitRatio, rs[2].FastHitRatio)
				}
			}
		}
	}
}

// checkCompared checks the rows of a comparison of lru and regret_aware
// on a trace of n accesses.
func checkCompared(t *testing.T, rs []sim.Result, n int) {
	t.Helper()
	var names []string
	for _, r := range rs {
		names = append(names, r.Policy)
		var hits int64
		for _, h := range r.Hits {
			hits += h
		}
		if r.Accesses != int64(n) || hits+r.Misses != r.Accesses {
			t.Errorf("%s (%s mode): %d accesses = %d hits + %d misses, want %d accesses", r.Policy, r.Mode,
				r.Accesses, hits, r.Misses, n)
		}
		t.Logf("%s %s mode: fast hit ratio %.3f, evictions %d", r.Policy, r.Mode, r.FastHitRatio, r.Evictions)
		if r.FastHitRatio < 0 || r.FastHitRatio > 1 {
			t.Errorf("%s: fast hit ratio %v", r.Policy, r.FastHitRatio)
		}
	}
	// lru is asked for, so its reference row is not printed again.
	if len(rs) != 3 || rs[0].Policy != "lru" || rs[1].Policy != "regret_aware" || rs[2].Policy != sim.RefBelady {
		t.Fatalf("compared %v, want lru, regret_aware, belady", names)
	}
}
