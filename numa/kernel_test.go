package numa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func treeRoots(base string) (proc, sys string) {
	return filepath.Join(base, "proc"), filepath.Join(base, "sys")
}

func TestReadKernelState(t *testing.T) {
	tests := []struct {
		tree      string
		want      KernelState
		conflicts int
	}{
		{"one-node", KernelState{0, 0, "madvise", "madvise"}, 0},
		{"cxl-2node", KernelState{BalancingNormal, 0, "always", "madvise"}, 1},
		{"two-socket-cxl", KernelState{BalancingTiering, 1, "always", "defer"}, 2},
		{"tiers-disagree", KernelState{BalancingNormal | BalancingTiering, 1, "never", "never"}, 3},
		{"old-kernel", KernelState{Unknown, Unknown, "", ""}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.tree, func(t *testing.T) {
			k, err := ReadKernelState(treeRoots(filepath.Join("testdata", "trees", tt.tree)))
			if err != nil {
				t.Fatal(err)
			}
			if k != tt.want {
				t.Errorf("state %+v, want %+v", k, tt.want)
			}
			if c := k.Conflicts(); len(c) != tt.conflicts {
				t.Errorf("conflicts %q, want %d", c, tt.conflicts)
			}
		})
	}
}

func TestReadKernelStateBroken(t *testing.T) {
	for tree, file := range map[string]string{
		"numa-balancing": "kernel/numa_balancing",
		"demotion":       "numa/demotion_enabled",
		"thp":            "transparent_hugepage/enabled",
	} {
		_, err := ReadKernelState(treeRoots(filepath.Join("testdata", "trees", "broken", tree)))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v, want ErrParse naming %s", tree, err, file)
		}
	}
}

// copyTree copies a fixture tree to a temporary directory so a test can
// write to it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := os.CopyFS(dst, os.DirFS(src))
	if err != nil {
		t.Fatal(err)
	}
	// CopyFS makes files read-only copies of the mode; let tests write.
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chmod(p, 0o644)
		}
		return err
	})
	return dst
}

func TestDisableAndRestoreKernelTiering(t *testing.T) {
	proc, sys := treeRoots(copyTree(t, filepath.Join("testdata", "trees", "tiers-disagree")))
	before, err := DisableKernelTiering(proc, sys)
	if err != nil {
		t.Fatal(err)
	}
	if before.NUMABalancing != 3 || before.Demotion != 1 {
		t.Fatalf("state before %+v", before)
	}
	now, err := ReadKernelState(proc, sys)
	if err != nil {
		t.Fatal(err)
	}
	if now.NUMABalancing != 0 || now.Demotion != 0 || len(now.Conflicts()) != 0 {
		t.Fatalf("after disable %+v, conflicts %q", now, now.Conflicts())
	}
	b, _ := os.ReadFile(filepath.Join(sys, "kernel", "mm", "numa", "demotion_enabled"))
	if string(b) != "false\n" {
		t.Errorf("demotion_enabled holds %q, want the kernel's spelling false", b)
	}
	if err := RestoreKernelTiering(proc, sys, before); err != nil {
		t.Fatal(err)
	}
	if again, _ := ReadKernelState(proc, sys); again != before {
		t.Fatalf("after restore %+v, want %+v", again, before)
	}
}

func TestDisableKernelTieringMissingFiles(t *testing.T) {
	proc, sys := treeRoots(copyTree(t, filepath.Join("testdata", "trees", "old-kernel")))
	if _, err := DisableKernelTiering(proc, sys); err != nil {
		t.Fatalf("kernel without the files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(proc, "sys", "kernel", "numa_balancing")); !os.IsNotExist(err) {
		t.Errorf("disable created numa_balancing: %v", err)
	}
}

// TestReadKernelStateHost reads this machine's state; it must parse.
func TestReadKernelStateHost(t *testing.T) {
	k, err := ReadKernelState("", "")
	if err != nil {
		t.Fatal(err)
	}
	if k.THPEnabled == "" && fileExists("/sys/kernel/mm/transparent_hugepage/enabled") {
		t.Error("THP mode not read")
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
