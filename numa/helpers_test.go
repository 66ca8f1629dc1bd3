package numa

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testBuffer maps n pages of anonymous memory without huge pages, fills
// every page with a pattern and returns it; it is unmapped at cleanup.
func testBuffer(t testing.TB, n int) []byte {
	t.Helper()
	b, err := unix.Mmap(-1, 0, n*PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatalf("mmap %d pages: %v", n, err)
	}
	t.Cleanup(func() { unix.Munmap(b) })
	if err := unix.Madvise(b, unix.MADV_NOHUGEPAGE); err != nil {
		t.Fatalf("MADV_NOHUGEPAGE: %v", err)
	}
	for i := range b {
		b[i] = byte(i*7 + i/PageSize)
	}
	return b
}

// checkPattern fails unless b still holds testBuffer's pattern.
func checkPattern(t testing.TB, b []byte) {
	t.Helper()
	for i := range b {
		if b[i] != byte(i*7+i/PageSize) {
			t.Fatalf("byte %d is %d, want %d: content corrupted", i, b[i], byte(i*7+i/PageSize))
		}
	}
}

func bufAddr(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

// hostTopology reads the host's topology.
func hostTopology(t testing.TB) *Topology {
	t.Helper()
	topo, err := ReadTopology("")
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel has no NUMA sysfs (/sys/devices/system/node): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// memoryNodes returns the host's nodes that have memory.
func memoryNodes(topo *Topology) []int {
	var ids []int
	for _, n := range topo.Nodes {
		if n.HasMemory() {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// requireRoot skips a test that needs root (CAP_SYS_NICE, ptrace access).
func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: moving or advising another process's memory needs CAP_SYS_NICE and ptrace access")
	}
}

// startChild starts a sleeping child process and kills it at cleanup.
func startChild(t testing.TB) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting child: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// openSkip opens pid, skipping the test if the kernel lacks pidfd_open.
func openSkip(t testing.TB, pid int) *Process {
	t.Helper()
	p, err := OpenProcess(pid)
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks pidfd_open(2) (Linux < 5.3): %v", err)
	}
	if err != nil {
		t.Fatalf("OpenProcess(%d): %v", pid, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
