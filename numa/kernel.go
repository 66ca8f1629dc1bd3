package numa

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// NUMA balancing modes (/proc/sys/kernel/numa_balancing is a bit mask).
const (
	BalancingNormal  = 1 // NUMA_BALANCING_NORMAL: pages follow the tasks using them
	BalancingTiering = 2 // NUMA_BALANCING_MEMORY_TIERING: hot pages promoted from slow tiers
)

// Unknown is the value of a KernelState field whose file does not exist.
const Unknown = -1

// KernelState is the kernel's own tiering, which fights any user-space
// placer: NUMA balancing moves pages back after kvtier moved them, and
// demotion on reclaim moves them down on its own.
type KernelState struct {
	// NUMABalancing is the numa_balancing mask (0 off, BalancingNormal,
	// BalancingTiering or both), or Unknown.
	NUMABalancing int `json:"numa_balancing"`
	// Demotion is /sys/kernel/mm/numa/demotion_enabled: 1, 0 or Unknown.
	Demotion int `json:"demotion_enabled"`
	// THPEnabled and THPDefrag are the selected transparent huge page
	// modes ("always", "madvise", "never", ...), or "" if unknown.
	THPEnabled string `json:"thp_enabled"`
	THPDefrag  string `json:"thp_defrag"`
}

// kernelFiles are the files ReadKernelState reads, relative to a root.
type kernelFiles struct{ balancing, demotion, thpEnabled, thpDefrag string }

func kernelPaths(procRoot, sysRoot string) kernelFiles {
	if procRoot == "" {
		procRoot = DefaultProcRoot
	}
	if sysRoot == "" {
		sysRoot = DefaultSysRoot
	}
	thp := filepath.Join(sysRoot, "kernel", "mm", "transparent_hugepage")
	return kernelFiles{
		balancing:  filepath.Join(procRoot, "sys", "kernel", "numa_balancing"),
		demotion:   filepath.Join(sysRoot, "kernel", "mm", "numa", "demotion_enabled"),
		thpEnabled: filepath.Join(thp, "enabled"),
		thpDefrag:  filepath.Join(thp, "defrag"),
	}
}

// ReadKernelState reads the kernel's tiering state under procRoot and
// sysRoot ("" for /proc and /sys). A missing file leaves its field
// Unknown; a malformed one is an error naming the file (ErrParse).
func ReadKernelState(procRoot, sysRoot string) (KernelState, error) {
	p := kernelPaths(procRoot, sysRoot)
	k := KernelState{NUMABalancing: Unknown, Demotion: Unknown}
	var err error
	if k.NUMABalancing, err = readIntFile(p.balancing, 0, BalancingNormal|BalancingTiering); err != nil {
		return k, err
	}
	if k.Demotion, err = readBoolFile(p.demotion); err != nil {
		return k, err
	}
	if k.THPEnabled, err = readSelected(p.thpEnabled); err != nil {
		return k, err
	}
	if k.THPDefrag, err = readSelected(p.thpDefrag); err != nil {
		return k, err
	}
	return k, nil
}

// Conflicts lists, in words, what in the kernel's state fights a
// user-space placer. Empty means nothing does.
func (k KernelState) Conflicts() []string {
	var out []string
	if k.NUMABalancing > 0 && k.NUMABalancing&BalancingNormal != 0 {
		out = append(out, "NUMA balancing is on (numa_balancing has bit 1): it moves pages back toward the CPUs using them")
	}
	if k.NUMABalancing > 0 && k.NUMABalancing&BalancingTiering != 0 {
		out = append(out, "NUMA balancing memory tiering is on (numa_balancing has bit 2): the kernel promotes hot pages itself")
	}
	if k.Demotion == 1 {
		out = append(out, "demotion_enabled is true: reclaim demotes pages to slower nodes itself")
	}
	return out
}

// DisableKernelTiering turns NUMA balancing and demotion on reclaim off
// (what kernel_tiering = "disable" asks), writing only the files that
// exist and are not already off. It returns the state before, for
// RestoreKernelTiering.
func DisableKernelTiering(procRoot, sysRoot string) (KernelState, error) {
	before, err := ReadKernelState(procRoot, sysRoot)
	if err != nil {
		return before, err
	}
	return before, setKernelTiering(procRoot, sysRoot, before, 0, 0)
}

// RestoreKernelTiering writes back the NUMA balancing and demotion
// settings of a state returned by DisableKernelTiering.
func RestoreKernelTiering(procRoot, sysRoot string, before KernelState) error {
	now, err := ReadKernelState(procRoot, sysRoot)
	if err != nil {
		return err
	}
	return setKernelTiering(procRoot, sysRoot, now, before.NUMABalancing, before.Demotion)
}

// setKernelTiering writes balancing and demotion where they are known and
// differ from cur.
func setKernelTiering(procRoot, sysRoot string, cur KernelState, balancing, demotion int) error {
	p := kernelPaths(procRoot, sysRoot)
	if cur.NUMABalancing != Unknown && balancing != Unknown && cur.NUMABalancing != balancing {
		if err := writeFile(p.balancing, strconv.Itoa(balancing)); err != nil {
			return err
		}
	}
	if cur.Demotion != Unknown && demotion != Unknown && cur.Demotion != demotion {
		if err := writeFile(p.demotion, strconv.FormatBool(demotion == 1)); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path, v string) error {
	if err := os.WriteFile(path, []byte(v+"\n"), 0); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("writing %s: %w (%v)", path, ErrPermission, err)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// readTrimmed reads a one-value file; ok is false if it does not exist.
func readTrimmed(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

func readIntFile(path string, lo, hi int) (int, error) {
	s, ok, err := readTrimmed(path)
	if err != nil || !ok {
		return Unknown, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return Unknown, fmt.Errorf("%s: %q is not an integer %d-%d: %w", path, s, lo, hi, ErrParse)
	}
	return v, nil
}

func readBoolFile(path string) (int, error) {
	s, ok, err := readTrimmed(path)
	if err != nil || !ok {
		return Unknown, err
	}
	switch s {
	case "true", "1", "Y", "y":
		return 1, nil
	case "false", "0", "N", "n":
		return 0, nil
	}
	return Unknown, fmt.Errorf("%s: %q is not true or false: %w", path, s, ErrParse)
}

// readSelected returns the bracketed choice of "always [madvise] never".
func readSelected(path string) (string, error) {
	s, ok, err := readTrimmed(path)
	if err != nil || !ok {
		return "", err
	}
	for _, f := range strings.Fields(s) {
		if len(f) > 2 && f[0] == '[' && f[len(f)-1] == ']' {
			return f[1 : len(f)-1], nil
		}
	}
	return "", fmt.Errorf("%s: %q has no [selected] choice: %w", path, s, ErrParse)
}
