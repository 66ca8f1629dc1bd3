package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/internal/testutil"
	"github.com/kvtier/kvtier/numa"
)

// TestNodeRoom: the planner's fast tier is capped at the tracked fast
// bytes plus node 0's room: what /proc/zoneinfo leaves above the zones'
// high watermarks and protection (numa.NodeRoom) or, without zoneinfo,
// MemFree less the reserve (0.5% of the node, at least 4 MiB), under
// fast_bytes when that is lower; with neither readable only the budget
// applies.
func TestNodeRoom(t *testing.T) {
	skipUnlessRoot(t)
	sys := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(sys, os.DirFS(filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys"))); err != nil {
		t.Fatal(err)
	}
	zoneinfo, err := os.ReadFile(filepath.Join("..", "numa", "testdata", "zoneinfo", "two-node"))
	if err != nil {
		t.Fatal(err)
	}
	meminfo := filepath.Join(sys, "devices", "system", "node", "node0", "meminfo")
	const mib = 1 << 20
	for _, tc := range []struct {
		name     string
		budget   string
		zoneinfo bool
		freeMiB  int64 // -1: meminfo missing
		want     int64
	}{
		{"zoneinfo: above the watermarks", "0", true, 100, (20000 - 9847 - 100 - 4736) * 4096},
		{"no zoneinfo: MemFree less the reserve", "0", false, 100, 100*mib - 8*mib},
		{"a budget below the room", "\"16MiB\"", true, 100, 16 * mib},
		{"a full node: no room, no demotions for room", "0", false, 2, 1},
		{"neither readable: budget only", "\"64MiB\"", false, -1, 64 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := t.TempDir()
			if tc.zoneinfo {
				if err := os.WriteFile(filepath.Join(proc, "zoneinfo"), zoneinfo, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			body := []byte("Node 0 MemTotal: 1638400 kB\nNode 0 MemFree: " + itoa(max(tc.freeMiB, 0)*1024) + " kB\n")
			if err := os.WriteFile(meminfo, body, 0o644); err != nil {
				t.Fatal(err)
			}
			d := newRoomDaemon(t, sys, proc, tc.budget)
			if tc.freeMiB < 0 {
				if err := os.Remove(meminfo); err != nil {
					t.Fatal(err)
				}
			}
			d.mu.Lock()
			d.nodeRoomLocked()
			got := d.planner.Capacity()
			d.mu.Unlock()
			if got != tc.want {
				t.Errorf("capacity %d, want %d", got, tc.want)
			}
		})
	}
}

// newRoomDaemon makes a daemon, not started, on the trees sys and proc
// with fast_bytes = budget (an HCL value), closed when the test ends.
func newRoomDaemon(t *testing.T, sys, proc, budget string) *Daemon {
	t.Helper()
	cfg, err := ParseConfig("room.hcl", []byte("kernel_tiering = \"report\"\nsampler \"fault\" {}\nbudgets {\n  fast_bytes = "+budget+"\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = t.TempDir() // never /var/lib/kvtier
	d, err := New(cfg, Options{SysRoot: sys, ProcRoot: proc, Logger: hclog.New(&hclog.LoggerOptions{Output: &testutil.SyncBuffer{}})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.closeAll)
	return d
}

// itoa formats n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestNodeRoomCarried: the room is read every roomEpochs epochs; in
// between, kvtier's own moves are counted against the room last read and
// other changes wait for the next read.
func TestNodeRoomCarried(t *testing.T) {
	skipUnlessRoot(t)
	sys := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(sys, os.DirFS(filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys"))); err != nil {
		t.Fatal(err)
	}
	meminfo := filepath.Join(sys, "devices", "system", "node", "node0", "meminfo")
	free := func(mib int64) {
		body := []byte("Node 0 MemTotal: 1638400 kB\nNode 0 MemFree: " + itoa(mib*1024) + " kB\n")
		if err := os.WriteFile(meminfo, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	free(100)
	cfg, err := ParseConfig("room.hcl", []byte("kernel_tiering = \"report\"\nsampler \"fault\" {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = t.TempDir()
	d, err := New(cfg, Options{SysRoot: sys, ProcRoot: t.TempDir(), Logger: hclog.New(&hclog.LoggerOptions{Output: &testutil.SyncBuffer{}})})
	if err != nil {
		t.Fatal(err)
	}
	defer d.closeAll()
	const mib = 1 << 20
	capacity := func() int64 {
		d.mu.Lock()
		defer d.mu.Unlock()
		d.nodeRoomLocked()
		return d.planner.Capacity()
	}
	if got, want := capacity(), int64(100*mib-8*mib); got != want {
		t.Fatalf("first read: capacity %d, want %d", got, want)
	}
	free(50) // another process allocates: seen at the next read
	d.room.moved(&numa.Report{PagesToFast: 512, PagesToSlow: 256})
	if got, want := capacity(), int64(99*mib-8*mib); got != want {
		t.Errorf("same epoch after kvtier moved 1 MiB in: capacity %d, want %d", got, want)
	}
	for range roomEpochs {
		d.planner.Plan(d.now())
	}
	if got, want := capacity(), int64(50*mib-8*mib); got != want {
		t.Errorf("after %d epochs: capacity %d, want %d (read again)", roomEpochs, got, want)
	}
}
