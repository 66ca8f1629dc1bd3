//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/kvtier/kvtier/internal/testutil"
)

const page = 4096

// requireRoot skips tests that load BPF programs when not run as root.
func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("loading BPF programs needs root")
	}
}

// openOrSkip opens a sampler, skipping only when the kernel lacks it.
func openOrSkip(t testing.TB, name string, opts Options) Sampler {
	t.Helper()
	if !slices.Contains(Names(), name) {
		t.Skipf("sampler %s is not built for %s", name, runtime.GOARCH)
	}
	requireRoot(t)
	s, err := Open(name, opts)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks what sampler %s needs: %v", name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// freshMap maps n bytes of anonymous memory without huge pages, so every
// first touch of a page faults once.
func freshMap(t testing.TB, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Madvise(b, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	return b
}

func addr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

// touchPages writes one byte to each page offset in pages on a locked
// thread.
func touchPages(b []byte, pages []int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, p := range pages {
		b[p*page] = 1
	}
}

// progIDs lists the kernel's loaded BPF program IDs.
func progIDs(t testing.TB) map[uint32]bool {
	t.Helper()
	ids := map[uint32]bool{}
	var id uint32
	for {
		next, err := progGetNextID(id)
		if err != nil {
			return ids
		}
		ids[next] = true
		id = next
	}
}

// kernelFDs counts this process's descriptors of BPF objects and perf
// events (anon inodes "bpf-map", "bpf-prog", "bpf_link", "perf_event").
func kernelFDs(t testing.TB) int {
	t.Helper()
	return testutil.FDs(t, func(l string) bool {
		return strings.HasPrefix(l, "anon_inode:bpf") || l == "anon_inode:[perf_event]"
	})
}
