// Package lab is the lab-compatible preset of kvtier's simulator: the
// model of kv-hierarchy-lab (github.com/manishklach/kv-hierarchy-lab, MIT),
// the harness of the seed study, learned from its code and written anew,
// so that kvtier reproduces the lab's published runs figure for figure.
//
// Its model differs from package sim's cache mode in three ways:
//
//   - A cold miss (a page in no tier) is inserted into the slowest tier for
//     free and then promoted from there, paying that tier's read latency
//     (2.5 ms for the kvlab tiers) plus the page at its bandwidth: about
//     4.6 ms for a 4 KiB page. sim charges 4x tier 0's read latency and the
//     page at half its bandwidth.
//   - A tier-0 hit costs tier 0's read latency and the decode penalty only,
//     with no size over bandwidth term.
//   - The policy chooses the victim in every tier, not only in tier 0: a
//     demotion into a full tier evicts that tier's policy victim one tier
//     further down. Room in tier 0 is made while a promoted page still sits
//     in its source tier, so the cascade may demote the page itself and
//     leave a stale copy below, as the lab does.
//
// The lab's policies (lru, cost_aware, regret_aware, heavy_hitter,
// windowed_recency, predictive) are implemented as the lab defines them,
// with the lab's tie-breaking (the first resident page in insertion order
// wins among equal scores), not kvtier's policies of the same names; any
// kvtier policy runs in the model as "kvtier:SPEC", one instance per tier;
// "belady" is tier 0's Bélády (belady.go). Config.Prefetch turns on the
// lab's prefetch hook (prefetch.go), through which predictive prefetches
// the pages it learned follow the one just read. Workloads come from
// trace.LabWorkload, which reproduces the lab's Python random draws.
// Ablation is the lab's regret ablation and DefaultSweep its default
// sweep; Check compares results with the lab's published figures; Model
// and Decompose switch the model's parts to sim's one at a time.
//
// The package is pure Go: no syscalls and no logging.
package lab
