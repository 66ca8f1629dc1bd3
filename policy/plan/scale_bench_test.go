package plan

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/policy"
)

// Scale benchmarks (issue 13): the planner's memory per tracked block,
// an epoch's decision with 1% of the blocks sampled, and the cost of
// hinted blocks, at 1M tracked blocks, and at 10M when KVTIER_BENCH_10M
// is set (10M blocks take a few GiB and a minute to set up, so
// `go test ./...` and `make bench` skip them):
//
//	KVTIER_BENCH_10M=1 go test -run '^$' -bench 'Scale' -benchtime 1x ./policy/plan/

// scaleSizes are the tracked block counts of the scale benchmarks.
func scaleSizes() []int {
	if os.Getenv("KVTIER_BENCH_10M") != "" {
		return []int{1 << 20, 10 << 20}
	}
	return []int{1 << 20}
}

// scaleName names a block count: 1M, 10M.
func scaleName(n int) string { return fmt.Sprintf("blocks=%dM", n>>20) }

// scaleBlockSize is the size of the scale benchmarks' blocks.
const scaleBlockSize = 4096

// scaleBlocks returns n blocks of four tenants, three priorities and
// three sharing levels, as the caller owns them.
func scaleBlocks(n int) []policy.Block {
	blocks := make([]policy.Block, n)
	for i := range blocks {
		blocks[i] = policy.Block{ID: uint64(i), Meta: policy.Meta{Size: scaleBlockSize, Tenant: uint32(i % 4),
			RefCount: int32(1 + i%3), Priority: policy.Priority(i % 3), Pos: int32(i)}}
	}
	return blocks
}

// scalePlanner returns an lru planner sized for n blocks: a quarter of
// them fit the fast tier, each tenant a quarter of that, and a plan moves
// at most n/100 blocks.
func scalePlanner(b *testing.B, n int) *Planner {
	b.Helper()
	p, err := New(Config{Policy: "lru", Budget: Budget{
		FastBytes:          int64(n) / 4 * scaleBlockSize,
		DefaultTenantBytes: int64(n) / 16 * scaleBlockSize,
		MoveBlocks:         n / 100,
	}})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkScaleTrackedBytes reports the heap the planner holds per
// tracked block (B/block: its entries, its index and the bucket
// policies' state) and with the caller's policy.Block counted too
// (B/block-total), after tracking every block: all slow (a registration
// of memory not yet touched, which the policies do not hold) or all fast
// (every block resident in its lru bucket). Run it with -benchtime 1x.
func BenchmarkScaleTrackedBytes(b *testing.B) {
	for _, n := range scaleSizes() {
		for _, fast := range []bool{false, true} {
			tier := map[bool]string{false: "slow", true: "fast"}[fast]
			b.Run(scaleName(n)+"/"+tier, func(b *testing.B) {
				var perBlock, total float64
				for b.Loop() {
					base := testutil.LiveHeap()
					blocks := scaleBlocks(n)
					withBlocks := testutil.LiveHeap()
					p := scalePlanner(b, n)
					for i := range blocks {
						if err := p.Track(&blocks[i], fast, 0); err != nil {
							b.Fatal(err)
						}
					}
					after := testutil.LiveHeap()
					perBlock = float64(after-withBlocks) / float64(n)
					total = float64(after-base) / float64(n)
					runtime.KeepAlive(p)
					runtime.KeepAlive(blocks)
				}
				b.ReportMetric(perBlock, "B/block")
				b.ReportMetric(total, "B/block-total")
			})
		}
	}
}

// scaleEpochs is the number of distinct epochs of sampled blocks the
// decision benchmark replays, and scaleShift the epochs between moves of
// its hot set.
const (
	scaleEpochs = 16
	scaleShift  = 4
)

// scaleSamples returns scaleEpochs epochs of n/100 distinct sampled
// blocks each, drawn from a Zipf(1.1) ranking over the n blocks that is
// reshuffled every scaleShift epochs.
func scaleSamples(n int) [][]uint64 {
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.1, 8, uint64(n-1))
	var perm []int
	out := make([][]uint64, scaleEpochs)
	seen := make([]uint8, n)
	for e := range out {
		if e%scaleShift == 0 {
			perm = rng.Perm(n)
		}
		clear(seen)
		for len(out[e]) < n/100 {
			// Past the head, Zipf draws repeat rarely: fill with uniform
			// draws once the head is taken, so that 1% are distinct.
			i := perm[zipf.Uint64()]
			if len(out[e]) > n/200 {
				i = rng.IntN(n)
			}
			if seen[i] == 0 {
				seen[i] = 1
				out[e] = append(out[e], uint64(i))
			}
		}
	}
	return out
}

// BenchmarkScaleEpoch measures one epoch with 1% of the tracked blocks
// sampled: feeding the sampled blocks (observe-ms), the plan (plan-ms:
// what the daemon's kvtier_policy_decision_seconds observes of the
// planner; plan-cpu-ms is the process's CPU time over the plans, which a
// loaded host does not inflate as it does wall time) and, outside the timer, every move reported done and the plan
// handed back (Recycle), as the daemon does. Half of the
// blocks are tracked fast, so the tier starts over its capacity and the
// first plans shed; the warm-up runs them.
func BenchmarkScaleEpoch(b *testing.B) {
	for _, n := range scaleSizes() {
		b.Run(scaleName(n), func(b *testing.B) {
			samples := scaleSamples(n)
			blocks := scaleBlocks(n)
			p := scalePlanner(b, n)
			for i := range blocks {
				if err := p.Track(&blocks[i], i%2 == 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			now := policy.Time(0)
			var observe, decide time.Duration
			var decideCPU int64
			epoch := func(i int) {
				now += int64(time.Second)
				start := time.Now()
				for _, id := range samples[i%len(samples)] {
					_ = p.Observe(id, Observation{Count: 2, Windows: 2}, now)
				}
				mid, cpu0 := time.Now(), testutil.ProcessCPU()
				pl := p.Plan(now)
				decideCPU += testutil.ProcessCPU() - cpu0
				observe += mid.Sub(start)
				decide += time.Since(mid)
				b.StopTimer()
				for _, m := range pl.Order() {
					_ = p.Done(m.Block.ID, m.Promote, true, now)
				}
				p.Recycle(pl)
				b.StartTimer()
			}
			for i := range 2 * scaleEpochs {
				epoch(i)
			}
			observe, decide, decideCPU = 0, 0, 0
			i := 0
			for b.Loop() {
				epoch(i)
				i++
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(i) }
			b.ReportMetric(ms(observe), "observe-ms")
			b.ReportMetric(ms(decide), "plan-ms")
			b.ReportMetric(ms(time.Duration(decideCPU)), "plan-cpu-ms")
		})
	}
}

// BenchmarkScaleHints measures hinted blocks (Observe with SourceHint,
// one read each) against n tracked blocks, a quarter fast, in batches of
// 1,000 blocks drawn from a Zipf(1.1) ranking: ns per hinted block and
// the cores that 1M hinted blocks a second would take
// (cores/1M-blocks/s, the target is under 0.5).
func BenchmarkScaleHints(b *testing.B) {
	for _, n := range scaleSizes() {
		b.Run(scaleName(n), func(b *testing.B) {
			blocks := scaleBlocks(n)
			p := scalePlanner(b, n)
			for i := range blocks {
				if err := p.Track(&blocks[i], i%4 == 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			rng := rand.New(rand.NewPCG(3, 5))
			zipf := rand.NewZipf(rng, 1.1, 8, uint64(n-1))
			ids := make([]uint64, 1<<20)
			for i := range ids {
				ids[i] = (zipf.Uint64() * 0x9e3779b1) % uint64(n)
			}
			o := Observation{Count: 1, Source: SourceHint}
			now, k, hinted := policy.Time(0), 0, 0
			cpu0 := testutil.ProcessCPU()
			for b.Loop() {
				now++
				for range 1000 {
					_ = p.Observe(ids[k&(len(ids)-1)], o, now)
					k++
				}
				hinted += 1000
				if hinted%100_000 == 0 {
					b.StopTimer()
					start := testutil.ProcessCPU()
					p.Plan(now) // an epoch ends now and then
					cpu0 += testutil.ProcessCPU() - start
					b.StartTimer()
				}
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
