// Package bench runs the head-to-head benchmark of issue 11: one fresh
// guest per configuration (the same topology, kernel, workload and seed),
// in sequence, and collects per configuration the workload's report,
// /proc/vmstat deltas, kvtier's metrics, and the CPU time of the kvtier
// daemon and of the kdamond threads.
package bench

import (
	"fmt"
	"strings"
	"time"
)

// Modes of a configuration: what runs next to the workload.
const (
	ModeNone   = "none"   // nothing: first touch decides
	ModeTPP    = "tpp"    // kernel NUMA balancing mode 2 with demotion
	ModeDAMOS  = "damos"  // DAMON DAMOS migrate_hot/migrate_cold
	ModeKvtier = "kvtier" // the kvtier daemon; the workload registers
)

// Config is one configuration of the benchmark.
type Config struct {
	Name string
	Mode string
	// HCL is the kvtier config's name under test/headtohead/configs
	// (without .hcl), for ModeKvtier.
	HCL string
	// FastBytes is the kvtier config's fast_bytes (0: the fast node's
	// room), for the simulator's prediction.
	FastBytes int64
	Hints     bool
	About     string
	// Tuning says how the configuration was set up, for RESULTS.md.
	Tuning string
	// Env are further variables for the guest's scripts (damos.sh's
	// DAMOS_* settings).
	Env map[string]string
}

// Configs are the benchmark's configurations, in the order they run.
var Configs = []Config{
	{Name: "first-touch", Mode: ModeNone, About: "no tiering: numa_balancing 0, demotion off, no DAMON",
		Tuning: "nothing to tune: first touch fills node 0, the rest of the arena spills to node 1 and stays there."},
	{Name: "tpp", Mode: ModeTPP, About: "kernel TPP: numa_balancing 2 (memory tiering), demotion_enabled 1",
		Tuning: "kernel.numa_balancing = 2, /sys/kernel/mm/numa/demotion_enabled = 1, " +
			"kernel.numa_balancing_promote_rate_limit_MBps = 256 (the migration budget kvtier and DAMOS get); " +
			"scan delay, periods and size left at the kernel's defaults (see kernel_knobs in results.json)."},
	{Name: "damos", Mode: ModeDAMOS, About: "DAMON DAMOS: migrate_cold node 0 -> 1, migrate_hot node 1 -> 0 (paddr)",
		Tuning: damosTuning},
	{Name: "damos-hmsdk", Mode: ModeDAMOS, About: "DAMON DAMOS with HMSDK's own intervals, ages and quotas (paddr)",
		Tuning: "As damos, with HMSDK's gen_migpol.py values unscaled: 100 ms sample, 2 s aggregation, 20 s update, 100-10000 regions; " +
			"migrate_cold after 15 aggregations (30 s) without access; migrate_hot at nr_accesses >= 1 of 20 (5%); quotas 50 GiB per 20 s, " +
			"1 s (cold) and 2 s (hot) of CPU per 20 s, prioritised by age.",
		Env: map[string]string{"DAMOS_SAMPLE_US": "100000", "DAMOS_AGGR_US": "2000000", "DAMOS_UPDATE_US": "20000000",
			"DAMOS_MAX_NR": "10000", "DAMOS_COLD_AGE": "15", "DAMOS_QUOTA_BYTES": "53687091200", "DAMOS_QUOTA_MS": "1000",
			"DAMOS_HOT_QUOTA_MS": "2000", "DAMOS_RESET_MS": "20000"}},
	{Name: "kvtier-damon", Mode: ModeKvtier, HCL: "kvtier-damon", About: "kvtier daemon, sampler \"damon\", no hints",
		Tuning: kvtierTuning + " sampler \"damon\" {}."},
	{Name: "kvtier-auto", Mode: ModeKvtier, HCL: "kvtier-auto", About: "kvtier daemon, sampler \"auto\", no hints",
		Tuning: kvtierTuning + " sampler \"auto\" {} (the daemon's own choice)."},
	{Name: "kvtier-auto-160", Mode: ModeKvtier, HCL: "kvtier-auto-160", FastBytes: 160 << 20,
		About: "kvtier-auto held to the issue's fast budget: 160 MiB (80 blocks)",
		Tuning: "As kvtier-auto with fast_bytes = \"160MiB\": 80 blocks, more than a hot set, fewer than the regret phase's sets C and D " +
			"together (88), while node 0 has room for about 130 of the arena's blocks."},
	{Name: "kvtier-hints", Mode: ModeKvtier, HCL: "kvtier-hints", Hints: true, About: "kvtier daemon, the workload sends a hint for every block it reads",
		Tuning: kvtierTuning + " sampler \"damon\" {}; the workload sends its reads as API hints every 250 ms."},
}

const kvtierTuning = "The default config (systemd/kvtier.hcl) with kernel_tiering = \"disable\", epoch 1s, " +
	"fast_bytes = 0 (the default: the fast node's room, as the kernel's tiering has), migrate_bytes_per_sec = \"256MiB\", " +
	"policy lru, the planner's defaults (decay 0.5, cooldown 2 epochs, promote_min 1, reuse_epochs 8); " +
	"the workload registers its arena (no pinned blocks);"

const damosTuning = "Set up like SK hynix's HMSDK (tools/gen_migpol.py): one kdamond per node, operations paddr over the node's " +
	"physical range (DAMOS migrate_hot/migrate_cold are paddr-only in 6.12); node 0: migrate_cold to node 1 for regions with " +
	"nr_accesses 0 for at least 4 aggregations (2 s), young pages filtered out; node 1: migrate_hot to node 0 for regions with " +
	"nr_accesses >= 1 (HMSDK's 5%), non-young pages filtered out. HMSDK's intervals (100 ms sample, 2 s aggregation, 20 s update, " +
	"30 s cold age) were scaled to kvtier's 1 s epoch: 20 ms sample, 500 ms aggregation, 5 s update, 100-2000 regions. " +
	"Quota per scheme: 256 MiB a second (kvtier's migration budget) and 1 s of CPU a second, prioritised by age (weights 0/0/1 as HMSDK). " +
	"numa_balancing 0 and demotion off: DAMOS alone moves pages."

// Lookup returns the configurations called names, in Configs' order.
func Lookup(names []string) ([]Config, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []Config
	for _, c := range Configs {
		if want[c.Name] {
			out = append(out, c)
			delete(want, c.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("no configuration %q (have %s)", n, strings.Join(Names(), ", "))
	}
	return out, nil
}

// Names are the names of every configuration.
func Names() []string {
	var s []string
	for _, c := range Configs {
		s = append(s, c.Name)
	}
	return s
}

// Phases are the workload's phase lengths.
type Phases struct {
	T1, T2, T3             time.Duration
	Warm, Cool, Burst, Gap time.Duration
	Cycles                 int
	ReplayTime             time.Duration
	ReplayRate             float64
	Seed                   int64
}

// Full are the phase lengths.
func Full() Phases {
	return Phases{T1: 60 * time.Second, T2: 60 * time.Second, T3: 30 * time.Second,
		Warm: 10 * time.Second, Cool: 30 * time.Second, Burst: 2 * time.Second, Gap: 10 * time.Second, Cycles: 4,
		ReplayTime: 60 * time.Second, ReplayRate: 10, Seed: 1}
}

// Short are the phase lengths of the short version in `make test`.
func Short() Phases {
	return Phases{T1: 15 * time.Second, T2: 15 * time.Second, T3: 10 * time.Second,
		Warm: 5 * time.Second, Cool: 8 * time.Second, Burst: 2 * time.Second, Gap: 5 * time.Second, Cycles: 2,
		ReplayTime: 10 * time.Second, ReplayRate: 10, Seed: 1}
}

// Flags are the workload's command-line flags for p.
func (p Phases) Flags() string {
	return fmt.Sprintf("-seed %d -t1 %s -t2 %s -t3 %s -regret-warm %s -regret-cool %s -regret-burst %s -regret-gap %s -regret-cycles %d -replay-time %s -replay-rate %g",
		p.Seed, p.T1, p.T2, p.T3, p.Warm, p.Cool, p.Burst, p.Gap, p.Cycles, p.ReplayTime, p.ReplayRate)
}

// GuestSeconds estimates the workload's length in the guest (without the
// fill and the boot).
func (p Phases) GuestSeconds() float64 {
	d := p.T1 + p.T2 + p.T3 + p.Warm + p.Cool + time.Duration(p.Cycles)*(p.Burst+p.Gap) + p.ReplayTime
	return d.Seconds()
}
