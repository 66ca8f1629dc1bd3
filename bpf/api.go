package bpf

import (
	"cmp"
	"fmt"
	"sort"
	"time"
)

// MaxRegionsPerProcess is how many regions one process (tgid) may have on
// the watch list at once (MAX_REGIONS in c/kvtier.h). The BPF programs keep
// a process's regions sorted by address and find the region of an access
// by a binary search of at most 13 steps, which the bound keeps
// verifiable. Options.MaxWatched bounds the regions of all processes.
const MaxRegionsPerProcess = 4096

// Region is one address range of one process to sample, cut into blocks of
// BlockSize bytes. Block i covers [Start+i*BlockSize, Start+(i+1)*BlockSize).
type Region struct {
	ID        uint32 `json:"id"`         // chosen by the caller, unique among watched regions
	PID       uint32 `json:"pid"`        // the process (thread group id), not a thread id
	Start     uint64 `json:"start"`      // first byte
	End       uint64 `json:"end"`        // one past the last byte
	BlockSize uint64 `json:"block_size"` // bytes per block, > 0
}

// Blocks is the number of blocks in r (the last one may be partial).
func (r Region) Blocks() uint64 {
	if r.BlockSize == 0 || r.End <= r.Start {
		return 0
	}
	return (r.End - r.Start + r.BlockSize - 1) / r.BlockSize
}

// Validate reports why r cannot be watched, wrapping ErrBadRegion.
func (r Region) Validate() error {
	switch {
	case r.PID == 0:
		return fmt.Errorf("region %d: pid 0: %w", r.ID, ErrBadRegion)
	case r.End <= r.Start:
		return fmt.Errorf("region %d: range %#x-%#x is empty or inverted: %w", r.ID, r.Start, r.End, ErrBadRegion)
	case r.BlockSize == 0:
		return fmt.Errorf("region %d: block size 0: %w", r.ID, ErrBadRegion)
	case r.Blocks() > 1<<32-1:
		return fmt.Errorf("region %d: %d blocks exceed 2^32-1: %w", r.ID, r.Blocks(), ErrBadRegion)
	}
	return nil
}

// Count is what the kernel aggregated for one block during one epoch (the
// time between two drains).
type Count struct {
	Region   uint32 `json:"region"`       // Region.ID
	Block    uint32 `json:"block"`        // block index within the region
	Accesses uint64 `json:"accesses"`     // sampled accesses (DAMON: sum of nr_accesses)
	Reads    uint64 `json:"reads"`        // accesses known to be reads (fault: error_code bit 1 clear)
	Writes   uint64 `json:"writes"`       // accesses known to be writes; Reads+Writes <= Accesses
	LastSeen uint64 `json:"last_seen_ns"` // CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns) of the last access
	// Events is how many program runs counted the block: DAMON
	// aggregations in which it was accessed, hint calls, faults or PMU
	// samples. Where Sight.Reuse holds, two events are two separate
	// accesses (evidence of reuse within one drain).
	Events uint64 `json:"events"`
}

// Stats are a sampler's counters since it was opened.
type Stats struct {
	Events  uint64 `json:"events"`  // program invocations for watched processes
	Matched uint64 `json:"matched"` // blocks counted (an event spanning blocks counts each)
	Outside uint64 `json:"outside"` // events of watched processes outside every region
	Drops   uint64 `json:"drops"`   // block counts lost because the count map was full
	Drains  uint64 `json:"drains"`  // completed drains
	// KernelCPUSeconds is the CPU time of kernel threads that work for
	// the sampler (damon: kvtier's kdamond), which the daemon's own CPU
	// time does not include.
	KernelCPUSeconds float64 `json:"kernel_cpu_seconds"`
}

// Sampler samples accesses to watched regions and aggregates them per block
// in the kernel. Methods are safe for concurrent use.
type Sampler interface {
	// Name is the sampler's registry name ("fault", "uprobe", ...).
	Name() string
	// Watch adds r to the watch list. Accesses outside every watched
	// region are ignored in the kernel.
	Watch(r Region) error
	// Unwatch removes region id. Counts already aggregated for it are
	// still returned by the next Drain.
	Unwatch(id uint32) error
	// Drain appends to dst the counts of the epoch that ends now, clears
	// them, and starts a new epoch. Events that arrive during the drain
	// land in the new epoch: none are lost. Counts come out sorted by
	// region and block.
	Drain(dst []Count) ([]Count, error)
	// Stats reads the sampler's counters.
	Stats() (Stats, error)
	// Close detaches every program and frees every map, perf event and
	// kernel object (DAMON kdamonds) the sampler created.
	Close() error
}

// ABI says how the uprobe sampler reads the hint function's arguments.
type ABI string

// Calling conventions of the hint function.
const (
	// ABIC: System V AMD64, addr in RDI and len in RSI (C, C++, Rust extern "C").
	ABIC ABI = "c"
	// ABIGo: Go's register ABI (ABIInternal), addr in RAX and len in RBX.
	ABIGo ABI = "go"
)

// HintSymbol is the C symbol engines export for the uprobe sampler:
//
//	void kvtier_hint_access(const void *addr, size_t len);
const HintSymbol = "kvtier_hint_access"

// Options configure Open. The zero value picks every default.
type Options struct {
	// MaxBlocks bounds the blocks counted per epoch (entries of each of
	// the two count maps). Beyond it events are dropped and counted in
	// Stats.Drops. Default 65536.
	MaxBlocks uint32
	// MaxProcesses bounds the distinct processes on the watch list.
	// Default 256.
	MaxProcesses uint32
	// MaxWatched bounds the regions on the watch list, all processes
	// together (each at most MaxRegionsPerProcess). The kernel holds
	// them in chunks of 128 regions (4 KiB) allocated when the sampler
	// opens: MaxProcesses + MaxWatched/128 + 32 chunks, 3.2 MiB with the
	// defaults. Default 65536.
	MaxWatched uint32
	// SysRoot is where sysfs is mounted (PMU detection, DAMON). Default
	// "/sys"; tests point it at fixture trees.
	SysRoot string
	// ProcRoot is where procfs is mounted. Default "/proc".
	ProcRoot string

	// SamplePeriod is events per sample for perf (default 10007) and
	// sw-page-faults (default 1: every fault).
	SamplePeriod uint64
	// PMU forces the perf sampler's PMU: "pebs" (mem-loads with a load
	// latency threshold), "pebs-l3miss" (MEM_LOAD_RETIRED.L3_MISS),
	// "ibs" (AMD IBS op). Empty picks what the host has.
	PMU string
	// LoadLatency is the PEBS load latency threshold in cycles. Default 30.
	LoadLatency uint32
	// CPUs lists the CPUs to open perf events on. Default: all online.
	CPUs []int

	// Binary is the executable or library holding the hint symbol. Empty:
	// each watched process's /proc/PID/exe.
	Binary string
	// Symbol is the hint function's symbol. Default HintSymbol; a Go
	// engine passes its function's symbol ("main.kvtierHintAccess").
	Symbol string
	// ABI is the hint function's calling convention. Default ABIC.
	ABI ABI

	// Epoch is how often the caller drains the sampler. Default 1s.
	Epoch time.Duration
	// DAMONSample and DAMONAggregate are DAMON's sampling and aggregation
	// intervals. Default: DAMONIntervals(Epoch).
	DAMONSample, DAMONAggregate time.Duration
	// DAMONMaxRegions caps the DAMON regions of all watched regions
	// together. DAMON monitors only the watched regions, one DAMON region
	// per block while the blocks fit, else per run of adjacent blocks.
	// Default 4096.
	DAMONMaxRegions uint32
	// DAMONRegionsPerBlock cuts each block in as many DAMON regions while
	// DAMONMaxRegions has room. Default DefaultRegionsPerBlock.
	DAMONRegionsPerBlock uint32
}

// DAMONIntervals derives DAMON's sampling and aggregation intervals from
// an epoch: two aggregations an epoch, so that every drain finds at least
// one, and five access checks an aggregation. A block's counts in an epoch
// then estimate how often it is used: a block used every T seconds
// collects about epoch/T checks that found it accessed (up to 10), and a
// block not used collects none. kdamond's CPU time grows with the checks
// (regions x checks a second); HMSDK checks every 100 ms too.
func DAMONIntervals(epoch time.Duration) (sample, aggregate time.Duration) {
	aggregate = max(epoch/2, time.Millisecond)
	return max(aggregate/5, 100*time.Microsecond), aggregate
}

type opener func(Options) (Sampler, error)

var samplers = map[string]opener{}

// Names lists the sampler names Open accepts, sorted.
func Names() []string {
	names := make([]string, 0, len(samplers))
	for n := range samplers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open loads and attaches the sampler called name. Its watch list starts
// empty. Errors wrap ErrUnknownSampler, ErrBadOption, ErrNotSupported
// (ErrNoPMU, ErrNoBTF), ErrPermission or ErrBusy.
func Open(name string, opts Options) (Sampler, error) {
	open, ok := samplers[name]
	if !ok {
		return nil, fmt.Errorf("sampler %q (have %v): %w", name, Names(), ErrUnknownSampler)
	}
	s, err := open(opts.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("opening sampler %s: %w", name, err)
	}
	return s, nil
}

func (o Options) withDefaults() Options {
	if o.MaxBlocks == 0 {
		o.MaxBlocks = 65536
	}
	if o.MaxProcesses == 0 {
		o.MaxProcesses = 256
	}
	if o.MaxWatched == 0 {
		o.MaxWatched = 65536
	}
	if o.SysRoot == "" {
		o.SysRoot = "/sys"
	}
	if o.ProcRoot == "" {
		o.ProcRoot = "/proc"
	}
	if o.LoadLatency == 0 {
		o.LoadLatency = 30
	}
	if o.Symbol == "" {
		o.Symbol = HintSymbol
	}
	if o.ABI == "" {
		o.ABI = ABIC
	}
	if o.Epoch <= 0 {
		o.Epoch = time.Second
	}
	if o.DAMONSample == 0 || o.DAMONAggregate == 0 {
		s, a := DAMONIntervals(o.Epoch)
		o.DAMONSample = cmp.Or(o.DAMONSample, s)
		o.DAMONAggregate = cmp.Or(o.DAMONAggregate, a)
	}
	if o.DAMONMaxRegions == 0 {
		o.DAMONMaxRegions = 4096
	}
	return o
}
