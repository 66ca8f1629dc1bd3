package bpf

import (
	"fmt"
	"sort"
)

// Sight is what a sampler can see of the accesses to a watched region.
type Sight struct {
	// SteadyState holds when the sampler sees accesses to memory that is
	// already resident: a process that keeps re-reading its KV cache is
	// seen. Without it only faults (first touches, NUMA hinting faults)
	// are, and a block's heat says little about how hot it is now.
	SteadyState bool
	// Reuse holds when every event that counts a block (Count.Events) is
	// a separate access: one DAMON aggregation interval in which the block
	// was accessed, one hint call. Two events in one drain are then
	// evidence that the block was read again. A page-fault or PMU
	// sampler's events can all come from one pass over the block.
	Reuse bool
	// Hint holds when the events are the engine's own reports of what it
	// reads (the uprobe sampler), as API hints are, rather than samples.
	Hint bool
	// Sees says in a few words what the sampler sees.
	Sees string
	// Misses says what it cannot see.
	Misses string
}

// faultSight is what the two page-fault samplers see.
var faultSight = Sight{
	Sees: "page faults: first touches, copy-on-write and NUMA hinting faults (the last only while " +
		"kernel NUMA balancing is on)",
	Misses: "a process re-reading or rewriting resident memory: it faults no more",
}

// sights is the registry of every sampler's Sight, by name. It lists
// every sampler kvtier has on any platform; Names lists the ones this
// build can open.
var sights = map[string]Sight{
	"perf": {SteadyState: true,
		Sees:   "sampled loads with their data addresses (Intel PEBS, AMD IBS op), resident or not",
		Misses: "stores where the PMU samples loads only (Intel PEBS); hosts without a memory-sampling PMU"},
	"damon": {SteadyState: true, Reuse: true,
		Sees: "accesses to resident pages, through the page-table accessed bits DAMON checks every " +
			"sampling interval (DAMON vaddr)",
		Misses: "whether an access read or wrote; detail finer than DAMON's regions; kernels without DAMON vaddr"},
	"uprobe": {SteadyState: true, Reuse: true, Hint: true,
		Sees:   "every block the engine reports through its hint function",
		Misses: "accesses the engine does not report; engines that do not export the hint function"},
	"sw-page-faults": faultSight,
	"fault":          faultSight,
}

// SightOf returns what the sampler called name can see. Its error wraps
// ErrUnknownSampler for a name kvtier has no sampler of.
func SightOf(name string) (Sight, error) {
	s, ok := sights[name]
	if !ok {
		return Sight{}, fmt.Errorf("sampler %q (have %v): %w", name, Known(), ErrUnknownSampler)
	}
	return s, nil
}

// Known lists, sorted, the name of every sampler kvtier has on any
// platform (Names lists those this build can open). Configs are checked
// against it, so that a config is valid or not wherever it is checked.
func Known() []string {
	names := make([]string, 0, len(sights))
	for n := range sights {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsKnown reports whether name is in Known.
func IsKnown(name string) bool {
	_, ok := sights[name]
	return ok
}
