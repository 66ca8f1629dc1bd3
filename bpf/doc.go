// Package bpf holds kvtier's eBPF access samplers: the BPF C sources
// (*.bpf.c), the committed bpf2go output (so builds need no clang; `make
// generate` rebuilds it with Debian's clang, llvm and libbpf-dev), and the
// loaders that attach the programs, keep the watch list and drain the
// counts.
//
// # Model
//
// A Sampler is opened by name (Open, Names). The caller puts Regions on its
// watch list (Watch): a process (tgid), an address range and a block size
// (any number of bytes, a power of two or not). The BPF program of every
// sampler resolves each access it sees to (region, block) in the kernel,
// by a binary search of the process's regions sorted by address (up to
// MaxRegionsPerProcess of them; Options.MaxWatched in all), ignores
// accesses outside every region, and adds it to a bounded hash map keyed by (region id, block index) that
// holds the access count, the reads and writes where the source tells them
// apart, and the last-seen time. When that map is full the event is
// dropped and counted (Stats.Drops); nothing else happens.
//
// Drain ends an epoch. There are two count maps; the programs find the
// active one through a one-slot array-of-maps. Drain swaps the slot to the
// other (empty) map, and the kernel's map-in-map update waits for every
// running program to finish before it returns, so the old map is quiet
// when Drain reads and clears it: an event either lands in the old epoch
// and is drained now, or in the new one and is drained next time.
//
// # Samplers
//
//   - perf: hardware memory-access sampling with one perf event per CPU
//     whose BPF program reads the sampled data address (ctx->addr): Intel
//     PEBS mem-loads with a load-latency threshold or
//     MEM_LOAD_RETIRED.L3_MISS, AMD IBS op. The PMU is detected under
//     Options.SysRoot; without one Open fails with ErrNoPMU naming what it
//     looked for.
//   - sw-page-faults: the same program on the software page-fault event
//     (every fault by default, Options.SamplePeriod). It sees first
//     touches, copy-on-write and NUMA hinting faults only.
//   - fault: the tracepoint exceptions:page_fault_user (attached as a raw
//     tracepoint, so tracefs need not be mounted); error_code bit 1 tells
//     writes from reads.
//   - damon: the kernel's data access monitor on the watched processes
//     (vaddr operations, configured through /sys/kernel/mm/damon/admin),
//     with a BPF program on damon:damon_aggregated that adds each DAMON
//     region's nr_accesses to every watched block it overlaps. It needs
//     DAMON vaddr (ErrNotSupported otherwise) and refuses with ErrBusy when
//     kdamonds it did not create exist.
//   - uprobe: application hints through a uprobe on a function the engine
//     exports (below).
//
// What a sampler can see is in its Sight (SightOf). perf, damon and uprobe
// see steady-state accesses: a process re-reading memory that is already
// resident. The page-fault samplers (sw-page-faults, fault) do not: they
// see first touches, and NUMA hinting faults only while kernel NUMA
// balancing is on; a process that keeps reading resident memory faults no
// more and produces no events.
//
// OpenAuto opens the best of them the host has: perf where DetectPMU finds
// a memory-sampling PMU, else damon where DAMON's sysfs interface exists,
// vaddr works and no other DAMON user owns the kdamonds, else none (the
// caller then has only the engine's hints). It returns what it found for
// each candidate, for the caller to log.
//
// # Application hints (uprobe sampler)
//
// An inference engine exports, and calls with the address of every KV block
// it reads (len may span several blocks; up to 64 are counted per call):
//
//	void kvtier_hint_access(const void *addr, size_t len);
//
// The function must not be inlined or removed and must have a symbol in the
// binary's symbol table (C: __attribute__((noinline, used)), exported with
// default visibility). Its body may be empty. The uprobe reads addr and len
// with the C calling convention (amd64: RDI, RSI; arm64: X0, X1),
// Options.ABI = ABIC.
//
// A Go engine (no cgo) declares a function such as
//
//	//go:noinline
//	func kvtierHintAccess(addr, n uintptr) { hintSink += addr + n }
//
// and the sampler is opened with Options.Symbol = "main.kvtierHintAccess"
// (the package path-qualified name in the Go symbol table) and Options.ABI =
// ABIGo: Go's register ABI passes addr in RAX and n in RBX on amd64, in R0
// and R1 on arm64. The body
// should use its arguments so the compiler keeps the call.
// internal/hintprog is such a program (and also calls an assembly hint
// entered with the C convention).
//
// The BPF objects are built for amd64 and arm64 (bpf2go -target
// amd64,arm64): the samplers exist on linux/amd64 and linux/arm64,
// elsewhere Names is empty. "fault" is amd64-only (arm64 kernels have no
// exceptions:page_fault_user tracepoint); sw-page-faults is its portable
// counterpart. perf finds no memory-sampling PMU on arm64 (DetectPMU knows
// PEBS and IBS, not SPE), so OpenAuto picks damon there. The arm64 objects
// are checked by parsing them (TestObjectsPerArch: context offsets of the
// perf and uprobe programs); they have not been loaded into an arm64
// kernel by kvtier's tests. On amd64 they load on
// Debian's 6.1 and 6.12 kernels: raw tracepoints (no tracefs needed),
// bpf_loop (5.17), perf-event links (5.15, with an ioctl fallback), CO-RE
// only for struct pt_regs (amd64) and struct damon_region.
//
// The binary must keep its symbol table: `go build` does, but `go run` and
// `go test` binaries and -ldflags=-s builds do not.
//
// The uprobe is attached to Options.Binary, or to /proc/PID/exe of each
// watched process; hints of processes with no watched region are ignored.
//
// # Errors
//
// Errors are wrapped with context and carry the sentinel errors of this
// package (ErrNotSupported, ErrNoPMU, ErrNoBTF, ErrPermission, ErrBusy, ...),
// which callers test with errors.Is. The package never logs.
package bpf
