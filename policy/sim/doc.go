// Package sim is kvtier's trace-driven simulator.
//
// A simulation replays a trace (a trace.Reader: a synthetic workload or a
// trace file) against a hierarchy of memory tiers (Hierarchy; presets
// kvlab and cxl) and a policy that chooses what leaves the fast tier.
// It runs in one of three modes:
//
//   - ModeCache, the seed study's model: every access to a block outside
//     tier 0 promotes it, the policy picks tier-0 victims, and demotions
//     cascade down the tiers (least recently used first below tier 0).
//   - ModeTiering, the daemon's model: time advances in epochs, only a
//     sample of accesses is seen, an access to a slow tier pays that tier's
//     latency without moving, and the planner of package plan (the one the
//     daemon runs) moves blocks within a migration budget per epoch.
//   - ModeBlocks, the classic cache-simulator model: a single fast tier of
//     N unit-size blocks, each access a hit or a miss.
//
// Latency is modelled additively, as in the seed study: a transfer costs
// the source read latency, the destination write latency, size over the
// smaller bandwidth and the quantisation decode penalty. Every run can be
// compared with LRU and Bélády's offline optimum on the same trace
// (Compare), which reports the share of the LRU-to-Bélády headroom a
// policy captures. The ablation runner (Grid, RunGrid) sweeps policies,
// parameters, scenarios, workloads, quantisations and seeds on all cores
// and writes JSON, CSV and SVG artifacts.
//
// The package is pure Go: no syscalls and no logging.
package sim
