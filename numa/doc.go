// Package numa is kvtier's layer between placement decisions and the kernel:
// NUMA topology and memory-tier discovery, process handles that survive PID
// reuse, placement queries, page migration, memory advice and the budgeted
// mover that executes a plan.
//
// # Topology
//
// ReadTopology reads nodes, CPUs, per-node memory, the distance matrix and
// the kernel's memory tiers from a sysfs tree (normally /sys; tests point it
// at fixture trees). Classify labels every node fast (DRAM) or slow (CXL or
// other far memory) and records why: a config override wins, then a lower
// kernel memory tier, then CPU-lessness (a memory-only node is slow).
// ReadKernelState reports the kernel's own tiering (NUMA balancing including
// mode 2 memory tiering, demotion on reclaim, THP), which fights any
// user-space placer.
//
// # Processes and placement
//
// A Process is a pidfd plus the start time read from /proc/PID/stat, so a
// recycled PID is detected (ErrPIDReused) and an exited process is reported
// (ErrProcessGone, Process.Exited). Maps parses /proc/PID/maps and finds
// regions by range, name (including memfd names) and size. QueryRange asks
// move_pages(2) where each page lives (nodes = NULL) in batches.
//
// # Migration and advice
//
// MovePages moves pages with move_pages(2) (MPOL_MF_MOVE; MPOL_MF_MOVE_ALL
// only when asked), retrying EBUSY with backoff and reporting every page it
// could not move. Madvise and Process.Advise (process_madvise(2) on the
// pidfd) give the kernel hints. MADV_PAGEOUT reclaims the pages: anonymous
// memory goes to swap (or is dropped if clean file-backed); it does NOT
// demote pages to a slower NUMA node. Use MovePages to demote.
//
// A Mover executes a Plan under budgets: bytes per second (a token bucket),
// pages per call, pages per epoch and the caller's context deadline. It
// reports achieved bytes per second, pages per direction (to fast / to
// slow, by the destination's class), an errno histogram and one Outcome
// per move (moved, already there, not present, failed by errno, skipped
// and why), which the daemon feeds back to its policy. Pages are queried
// before they are moved, so only pages off their destination are charged
// to the budgets. PID reuse: move_pages(2) takes a PID, so the Mover
// checks the pidfd before every call; process_madvise(2) takes the pidfd
// itself.
//
// Transparent huge pages: move_pages(2) addresses base pages, and a THP is
// moved (or refused with EBUSY) as a whole; the per-page status reports
// that. ReadHugeBacking sums AnonHugePages (and the shmem/file PMD
// figures) from /proc/PID/smaps to learn whether a range is THP-backed.
//
// Syscalls live only here (and in bpf/). The package never logs; errors are
// wrapped with context and the sentinel errors are tested with errors.Is.
package numa
