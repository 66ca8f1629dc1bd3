package testutil

import (
	"runtime"
	"syscall"
)

// ProcessCPU is the CPU time, user and system, this process has used, in
// nanoseconds (getrusage(2)), for benchmarks that report cores per unit
// of work whatever else runs on the host; 0 if it cannot be read.
func ProcessCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// LiveHeap is the heap in use after two full collections (the second
// frees what the first's finalizers released), for benchmarks that report
// bytes per item held.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
