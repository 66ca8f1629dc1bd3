package policy

import "unsafe"

// prefetch asks the processor to bring the cache line at p into its
// caches, without waiting for it: unlike a load, whose miss holds up the
// instructions after it once the processor's window is full, it retires
// at once, so the line arrives while later work runs. It never faults
// and changes nothing a program can observe but time.
//
//go:noescape
func prefetch(p unsafe.Pointer)
