package daemon

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// Scale benchmarks (issue 13) of the daemon: memory per tracked block
// (its regions and the planner together), an epoch's decision with 1% of
// the blocks sampled and hinted blocks, at 1M blocks of 4 KiB (regions of
// 1Mi blocks), and at 10M when KVTIER_BENCH_10M is set:
//
//	KVTIER_BENCH_10M=1 go test -run '^$' -bench 'Scale' -benchtime 1x ./daemon/

const (
	scaleRegionBlocks = 1 << 20
	scaleBlockSize    = 4 << 10
)

// scaleRegions are the benchmarks' region counts (of scaleRegionBlocks).
func scaleRegions() []int {
	if os.Getenv("KVTIER_BENCH_10M") != "" {
		return []int{1, 10}
	}
	return []int{1}
}

// scaleConfig gives a quarter of the tracked bytes to the fast tier and
// lets an epoch move 1% of the blocks.
const scaleConfig = `
epoch = "1s"
kernel_tiering = "report"
sampler "fault" {}
policy "lru" {}
budgets {
  fast_bytes            = %d
  migrate_bytes_per_sec = %d
}
`

// scaleDaemon builds a daemon on the two-node fixture of numa/ tracking
// regions of scaleRegionBlocks blocks (never moved, so never mapped),
// every block fast or every block slow.
func scaleDaemon(b *testing.B, regions int, fast bool) *Daemon {
	b.Helper()
	total := int64(regions) * scaleRegionBlocks * scaleBlockSize
	d, proc := benchFixture(b, "scale.hcl", fmt.Appendf(nil, scaleConfig, total/4, total/100))
	tiers := make([]bool, scaleRegionBlocks)
	for i := range tiers {
		tiers[i] = fast
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range regions {
		s := regionSpec{pid: os.Getpid(), addr: uint64(i+1) << 40, length: scaleRegionBlocks * scaleBlockSize,
			blockSz: scaleBlockSize, tenant: fmt.Sprintf("t%d", i%4), source: "bench",
			priority: policy.PriorityNormal, refcount: 1, fast: tiers}
		if _, err := d.trackLocked(s, proc); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

// BenchmarkScaleTrackedBytes reports the daemon's heap per tracked block
// (B/block: the regions' blocks and slices, the planner and the policy
// state), every block slow (a registration of memory not yet touched, as
// issue 13 measured it) or every block fast. Run it with -benchtime 1x.
func BenchmarkScaleTrackedBytes(b *testing.B) {
	for _, regions := range scaleRegions() {
		for _, fast := range []bool{false, true} {
			tier := map[bool]string{false: "slow", true: "fast"}[fast]
			b.Run(fmt.Sprintf("blocks=%dM/%s", regions, tier), func(b *testing.B) {
				var perBlock float64
				for b.Loop() {
					before := testutil.LiveHeap()
					d := scaleDaemon(b, regions, fast)
					perBlock = float64(testutil.LiveHeap()-before) / float64(regions*scaleRegionBlocks)
					runtime.KeepAlive(d)
				}
				b.ReportMetric(perBlock, "B/block")
			})
		}
	}
}

// scaleCounts returns epochs of drained counts, each of 1% of the blocks
// of regions regions (distinct, half from a Zipf(1.1) ranking reshuffled
// every four epochs, half uniform), two accesses each.
func scaleCounts(regions, epochs int) [][]bpf.Count {
	n := regions * scaleRegionBlocks
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.1, 8, uint64(n-1))
	var perm []int
	out := make([][]bpf.Count, epochs)
	seen := make([]bool, n)
	for e := range out {
		if e%4 == 0 {
			perm = rng.Perm(n)
		}
		clear(seen)
		for len(out[e]) < n/100 {
			i := perm[zipf.Uint64()]
			if len(out[e]) > n/200 {
				i = rng.IntN(n)
			}
			if !seen[i] {
				seen[i] = true
				out[e] = append(out[e], bpf.Count{Region: uint32(i/scaleRegionBlocks + 1),
					Block: uint32(i % scaleRegionBlocks), Accesses: 2})
			}
		}
	}
	return out
}

// BenchmarkScaleEpochDecision measures an epoch's decision with 1% of the
// tracked blocks sampled, as BenchmarkEpochDecision does: feeding the
// counts (feed-ms) and the plan with the mover's moves built from it
// (decide-ms, what kvtier_policy_decision_seconds observes). Every block
// starts fast, four times the fast budget: the warm-up sheds 1% a plan and
// runs the moves. An epoch begins with the sweep of idle blocks (sweep-ms;
// the daemon's epoch runs it before it drains the samplers). B/block is
// the daemon's heap per block at the end: the blocks sampled, hinted or
// moved lately have their state (blocks.go, sweep.go).
func BenchmarkScaleEpochDecision(b *testing.B) {
	for _, regions := range scaleRegions() {
		b.Run(fmt.Sprintf("blocks=%dM", regions), func(b *testing.B) {
			epochs := scaleCounts(regions, 16)
			before := testutil.LiveHeap()
			d := scaleDaemon(b, regions, true)
			now, i := policy.Time(0), 0
			var feed, decide, sweep time.Duration
			run := func() {
				now += policy.Time(d.cfg.Epoch)
				d.mu.Lock()
				defer d.mu.Unlock()
				swept := time.Now()
				d.sweepLocked(now)
				start := time.Now()
				sweep += start.Sub(swept)
				d.feedCountsLocked(openedState("damon"), epochs[i%len(epochs)], now, tenantHits{})
				mid := time.Now()
				pl, moves, mp := d.decideLocked(now)
				feed += mid.Sub(start)
				decide += time.Since(mid)
				b.StopTimer()
				d.feedback(moves, succeeded(mp), now)
				d.expireDemoted()
				d.planner.Recycle(pl) // as runEpoch does
				d.recycleMoves(moves, mp)
				b.StartTimer()
				i++
			}
			for range 2 * len(epochs) {
				run()
			}
			feed, decide, sweep, i = 0, 0, 0, 0
			for b.Loop() {
				run()
			}
			ms := func(t time.Duration) float64 { return float64(t) / float64(time.Millisecond) / float64(i) }
			b.ReportMetric(ms(feed), "feed-ms")
			b.ReportMetric(ms(decide), "decide-ms")
			b.ReportMetric(ms(sweep), "sweep-ms")
			b.ReportMetric(float64(testutil.LiveHeap()-before)/float64(regions*scaleRegionBlocks), "B/block")
			runtime.KeepAlive(d)
		})
	}
}

// BenchmarkScaleHints measures the daemon's handling of hint requests of
// 1,000 blocks (Zipf(1.1) over the region's blocks) without the HTTP and
// JSON layers: ns per hinted block, and the cores that 1M hinted blocks a
// second would take (cores/1M-blocks/s; the target is under 0.5).
func BenchmarkScaleHints(b *testing.B) {
	for _, regions := range scaleRegions() {
		b.Run(fmt.Sprintf("blocks=%dM", regions), func(b *testing.B) {
			d := scaleDaemon(b, regions, false)
			rng := rand.New(rand.NewPCG(3, 5))
			zipf := rand.NewZipf(rng, 1.1, 8, scaleRegionBlocks-1)
			reqs := make([]api.HintsRequest, 256)
			for i := range reqs {
				reqs[i].Blocks = make([]uint64, 1000)
				for j := range reqs[i].Blocks {
					reqs[i].Blocks[j] = (zipf.Uint64() * 0x9e3779b1) % scaleRegionBlocks
				}
			}
			hinted, cpu0 := 0, testutil.ProcessCPU()
			for b.Loop() {
				req := reqs[hinted/1000%len(reqs)]
				if _, err := d.hints(caller{}, uint64(1+hinted/1000%regions), req); err != nil {
					b.Fatal(err)
				}
				hinted += 1000
			}
			cpu := float64(testutil.ProcessCPU()-cpu0) / float64(hinted)
			ns := float64(b.Elapsed().Nanoseconds()) / float64(hinted)
			b.ReportMetric(ns, "ns/block")
			b.ReportMetric(cpu, "cpu-ns/block")
			b.ReportMetric(1e9/ns, "blocks/s")
			b.ReportMetric(cpu/1e3, "cores/1M-blocks/s")
		})
	}
}
