package daemon

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/numa"
	"github.com/kvtier/kvtier/policy"
)

// Sizes of the decision benchmark: a host with 64 KV regions of 512
// blocks of 2 MiB (64 GiB tracked), a quarter of it in DRAM, four tenants
// with equal quotas, and 5% of the blocks sampled each epoch.
const (
	benchRegions    = 64
	benchBlocks     = 512
	benchBlockSize  = 2 << 20
	benchSampled    = benchRegions * benchBlocks * 5 / 100
	benchEpochs     = 64 // distinct epochs of sampled counts, replayed in a loop
	benchShiftEvery = 8  // epochs between shifts of the hot set
)

const benchConfig = `
epoch = "1s"
kernel_tiering = "report"
sampler "fault" {}
policy %q {}
budgets {
  fast_bytes            = "16GiB"
  migrate_bytes_per_sec = "1GiB"
  tenant "t0" { fast_bytes = "4GiB" }
  tenant "t1" { fast_bytes = "4GiB" }
  tenant "t2" { fast_bytes = "4GiB" }
  tenant "t3" { fast_bytes = "4GiB" }
}
`

// benchFixture starts a daemon of config src on the two-node fixture of
// numa/ (node 1 slow), its state in a temporary directory, and opens this
// process for its regions; it skips without root (the BPF samplers).
func benchFixture(b *testing.B, name string, src []byte) (*Daemon, *numa.Process) {
	b.Helper()
	if os.Geteuid() != 0 {
		b.Skip("the daemon opens its BPF samplers, which needs root")
	}
	cfg, err := ParseConfig(name, src)
	if err != nil {
		b.Fatal(err)
	}
	sys := filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys")
	cfg.StateDir = b.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{SysRoot: sys, Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(d.closeAll)
	proc, err := numa.OpenProcess(os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { proc.Close() })
	return d, proc
}

// benchDaemon builds a daemon on the two-node fixture of numa/ (node 1
// slow) and tracks the benchmark's regions; their blocks are never moved
// (the mover does not run), so their addresses need not be mapped.
func benchDaemon(b *testing.B, pol string) *Daemon {
	b.Helper()
	d, proc := benchFixture(b, "bench.hcl", fmt.Appendf(nil, benchConfig, pol))
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range benchRegions {
		s := regionSpec{pid: os.Getpid(), addr: uint64(i+1) << 40, length: benchBlocks * benchBlockSize,
			blockSz: benchBlockSize, tenant: fmt.Sprintf("t%d", i%4), source: "bench",
			priority: policy.PriorityNormal, refcount: int32(1 + i%3)}
		if _, err := d.trackLocked(s, proc); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

// benchCounts returns benchEpochs epochs of drained counts: benchSampled
// distinct blocks an epoch drawn from a Zipf distribution over all blocks,
// whose ranking is reshuffled every benchShiftEvery epochs (the hot set
// moves, so blocks are promoted and demoted).
func benchCounts() [][]bpf.Count {
	const n = benchRegions * benchBlocks
	rng := rand.New(rand.NewPCG(7, 11))
	zipf := rand.NewZipf(rng, 1.1, 8, n-1)
	var perm []int
	out := make([][]bpf.Count, benchEpochs)
	for e := range out {
		if e%benchShiftEvery == 0 {
			perm = rng.Perm(n)
		}
		counts := map[int]uint64{}
		for len(counts) < benchSampled {
			counts[perm[zipf.Uint64()]]++
		}
		for blk, c := range counts {
			// Region IDs are 1..benchRegions, in registration order.
			out[e] = append(out[e], bpf.Count{Region: uint32(blk/benchBlocks + 1), Block: uint32(blk % benchBlocks),
				Accesses: c})
		}
	}
	return out
}

// succeeded is the mover's report of a plan whose every move went through.
func succeeded(mp numa.Plan) *numa.Report {
	rep := &numa.Report{Outcomes: make([]numa.Outcome, len(mp))}
	for i, m := range mp {
		pages := int(m.Len) / numa.PageSize
		rep.Outcomes[i] = numa.Outcome{Pages: pages, Moved: pages}
	}
	return rep
}

// BenchmarkEpochDecision measures the daemon's decision per epoch, what
// kvtier_policy_decision_seconds observes plus the feeding of the drained
// counts: 1,638 sampled blocks (5% of 64 regions x 512 blocks of 2 MiB)
// fed to the planner, the plan within the budgets (16 GiB of DRAM, 1 GiB/s
// of migration, four tenant quotas) and the mover's moves built from it.
// The feedback of the moves (all reported done) runs between epochs,
// outside the timer. ns/op is per epoch; ns/block divides it by the 32,768
// tracked blocks and ns/sampled by the sampled ones.
func BenchmarkEpochDecision(b *testing.B) {
	epochs := benchCounts()
	for _, pol := range []string{"lru", "regret_aware"} {
		b.Run(pol, func(b *testing.B) {
			d := benchDaemon(b, pol)
			epoch := policy.Time(d.cfg.Epoch)
			now := policy.Time(0)
			run := func(i int) int {
				now += epoch
				d.mu.Lock()
				defer d.mu.Unlock()
				d.feedCountsLocked(openedState("damon"), epochs[i%len(epochs)], now, tenantHits{})
				pl, moves, mp := d.decideLocked(now)
				b.StopTimer()
				d.feedback(moves, succeeded(mp), now)
				d.expireDemoted()
				d.planner.Recycle(pl) // as runEpoch does
				n := len(moves)
				d.recycleMoves(moves, mp)
				b.StartTimer()
				return n
			}
			// Warm up: the regions start all fast, as registered
			// regions do, and the hot set moves several times.
			for i := range 2 * benchEpochs {
				run(i)
			}
			moved := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				moved += run(i)
			}
			b.StopTimer()
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/(benchRegions*benchBlocks), "ns/block")
			b.ReportMetric(ns/benchSampled, "ns/sampled")
			b.ReportMetric(float64(moved)/float64(b.N), "moves/epoch")
		})
	}
}
