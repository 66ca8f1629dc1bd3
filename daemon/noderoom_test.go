package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/internal/testutil"
)

// TestNodeRoom: the planner's fast tier is capped at the tracked fast
// bytes plus node 0's free memory less the reserve (0.5% of the node, at
// least 4 MiB), under fast_bytes when that is lower; with node 0's free
// memory unreadable only the budget applies.
func TestNodeRoom(t *testing.T) {
	skipUnlessRoot(t)
	sys := filepath.Join(t.TempDir(), "sys")
	if err := os.CopyFS(sys, os.DirFS(filepath.Join("..", "numa", "testdata", "trees", "cxl-2node", "sys"))); err != nil {
		t.Fatal(err)
	}
	meminfo := filepath.Join(sys, "devices", "system", "node", "node0", "meminfo")
	const mib = 1 << 20
	for _, tc := range []struct {
		name    string
		budget  string
		freeMiB int64 // -1: meminfo missing
		want    int64
	}{
		{"no budget: the node's room", "0", 100, 100*mib - 8*mib},
		{"a budget below the room", "\"64MiB\"", 100, 64 * mib},
		{"a full node: no room at all", "0", 2, 1},
		{"meminfo unreadable: budget only", "\"64MiB\"", -1, 64 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte("Node 0 MemTotal: 1638400 kB\nNode 0 MemFree: " + itoa(max(tc.freeMiB, 0)*1024) + " kB\n")
			if err := os.WriteFile(meminfo, body, 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseConfig("room.hcl", []byte("kernel_tiering = \"report\"\nsampler \"fault\" {}\nbudgets {\n  fast_bytes = "+tc.budget+"\n}\n"))
			if err != nil {
				t.Fatal(err)
			}
			d, err := New(cfg, Options{SysRoot: sys, Logger: hclog.New(&hclog.LoggerOptions{Output: &testutil.SyncBuffer{}})})
			if err != nil {
				t.Fatal(err)
			}
			defer d.closeAll()
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
				t.Errorf("capacity %d, want %d (reserve %d)", got, tc.want, d.nodeReserve())
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
