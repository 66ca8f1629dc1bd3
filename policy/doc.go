// Package policy holds kvtier's eviction and placement policies.
//
// A Policy tracks the blocks resident in the fast tier (DRAM) and chooses
// which of them to demote when room is needed. It learns from four events:
// a block was accessed, admitted into the fast tier, evicted (demoted) from
// it, or forgotten (freed). The same policies run in the daemon, fed by eBPF
// samplers, and in the trace-driven simulator, fed by trace replay.
//
// Policies are registered by name and built from a spec such as
// "regret_aware:weight=12,horizon=64" with New. A Set admits and evicts blocks
// through a policy under a byte capacity and never offers pinned blocks to
// the policy as victims.
//
// The package is pure Go: no syscalls and no logging.
package policy
