package bpf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const damonCtx = "kernel/mm/damon/admin/kdamonds/0/contexts/0/"

func damonTree(t *testing.T, nr, avail string) string {
	files := map[string]string{
		"kernel/mm/damon/admin/kdamonds/nr_kdamonds":            nr,
		"kernel/mm/damon/admin/kdamonds/0/state":                "off\n",
		"kernel/mm/damon/admin/kdamonds/0/contexts/nr_contexts": "0\n",
		damonCtx + "avail_operations":                           avail,
		damonCtx + "operations":                                 "paddr\n",
		damonCtx + "monitoring_attrs/intervals/sample_us":       "",
		damonCtx + "monitoring_attrs/intervals/aggr_us":         "",
		damonCtx + "monitoring_attrs/intervals/update_us":       "",
		damonCtx + "monitoring_attrs/nr_regions/min":            "",
		damonCtx + "monitoring_attrs/nr_regions/max":            "",
		damonCtx + "targets/nr_targets":                         "0\n",
	}
	for ti := range 2 {
		tp := fmt.Sprintf("%stargets/%d/", damonCtx, ti)
		files[tp+"pid_target"] = ""
		files[tp+"regions/nr_regions"] = "0\n"
		for ri := range 4 {
			files[fmt.Sprintf("%sregions/%d/start", tp, ri)] = ""
			files[fmt.Sprintf("%sregions/%d/end", tp, ri)] = ""
		}
	}
	return writeTree(t, files)
}

func readTrim(t *testing.T, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestDamonAdmin drives a fixture sysfs tree through probe, two targets
// with block-aligned regions and close, checking every value the kernel
// would receive: the regions are both DAMON's minimum and maximum (no
// merging across blocks, no splitting) and vaddr's update is a day away
// (it would reset the regions to the whole address space).
func TestDamonAdmin(t *testing.T) {
	root := damonTree(t, "0\n", "vaddr\nfvaddr\npaddr\n")
	d := newDamonAdmin(root, root, damonAttrs{sample: 50 * time.Millisecond, aggr: 500 * time.Millisecond})
	if err := d.probe(); err != nil {
		t.Fatal(err)
	}
	targets := []damonTarget{
		{pid: 42, regions: []damonRange{{0x1000, 0x3000}, {0x3000, 0x5000}}},
		{pid: 43, regions: []damonRange{{0x10000, 0x20000}, {0x20000, 0x30000}, {0x30000, 0x40000}, {0x40000, 0x48000}}},
	}
	if err := d.apply(targets); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"kernel/mm/damon/admin/kdamonds/nr_kdamonds":            "1",
		"kernel/mm/damon/admin/kdamonds/0/contexts/nr_contexts": "1",
		"kernel/mm/damon/admin/kdamonds/0/state":                "on",
		damonCtx + "operations":                                 "vaddr",
		damonCtx + "monitoring_attrs/intervals/sample_us":       "50000",
		damonCtx + "monitoring_attrs/intervals/aggr_us":         "500000",
		damonCtx + "monitoring_attrs/intervals/update_us":       "86400000000",
		damonCtx + "monitoring_attrs/nr_regions/min":            "6",
		damonCtx + "monitoring_attrs/nr_regions/max":            "6",
		damonCtx + "targets/nr_targets":                         "2",
		damonCtx + "targets/0/pid_target":                       "42",
		damonCtx + "targets/0/regions/nr_regions":               "2",
		damonCtx + "targets/0/regions/1/start":                  "12288",
		damonCtx + "targets/0/regions/1/end":                    "20480",
		damonCtx + "targets/1/pid_target":                       "43",
		damonCtx + "targets/1/regions/nr_regions":               "4",
		damonCtx + "targets/1/regions/3/start":                  "262144",
		damonCtx + "targets/1/regions/3/end":                    "294912",
	} {
		if got := readTrim(t, root, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if err := d.apply(nil); err != nil {
		t.Fatal(err)
	}
	if got := readTrim(t, root, "kernel/mm/damon/admin/kdamonds/0/state"); got != "off" {
		t.Errorf("state after the last target left = %q, want off", got)
	}
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	if got := readTrim(t, root, "kernel/mm/damon/admin/kdamonds/nr_kdamonds"); got != "0" {
		t.Errorf("nr_kdamonds after close = %q, want 0", got)
	}
}

// TestDamonAdminFewRegions: DAMON refuses fewer than 3 regions as its
// minimum, so one block still asks for 3 (and is never split: splitting
// needs fewer regions than half the maximum).
func TestDamonAdminFewRegions(t *testing.T) {
	root := damonTree(t, "0\n", "vaddr\n")
	d := newDamonAdmin(root, root, damonAttrs{sample: time.Millisecond, aggr: 10 * time.Millisecond})
	if err := d.probe(); err != nil {
		t.Fatal(err)
	}
	if err := d.apply([]damonTarget{{pid: 7, regions: []damonRange{{0x1000, 0x2000}}}}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"min", "max"} {
		if got := readTrim(t, root, damonCtx+"monitoring_attrs/nr_regions/"+f); got != "3" {
			t.Errorf("nr_regions/%s = %q, want 3", f, got)
		}
	}
}

func TestDamonAdminRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, nr, avail string
		want            error
		mention         string
	}{
		{"paddr only", "1\n", "paddr\n", ErrNotSupported, "vaddr"},
		{"another user", "1\n", "vaddr\npaddr\n", ErrBusy, "kdamond 0 off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := damonTree(t, tc.nr, tc.avail)
			d := newDamonAdmin(root, root, damonAttrs{})
			err := d.probe()
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mention) {
				t.Fatalf("probe = %v, want %v mentioning %q", err, tc.want, tc.mention)
			}
			if err := d.close(); err != nil {
				t.Fatal(err)
			}
			if got := readTrim(t, root, "kernel/mm/damon/admin/kdamonds/nr_kdamonds"); got != "1" {
				t.Errorf("nr_kdamonds = %q: another user's kdamond was touched", got)
			}
		})
	}
	if err := newDamonAdmin(t.TempDir(), "", damonAttrs{}).probe(); !errors.Is(err, ErrNotSupported) {
		t.Errorf("probe without DAMON sysfs = %v, want ErrNotSupported", err)
	}
}

// TestDamonAdminCPU: the kdamond's CPU time comes from /proc/PID/stat of
// the pid its sysfs directory names, and survives restarts (each apply
// starts a new thread).
func TestDamonAdminCPU(t *testing.T) {
	root := damonTree(t, "0\n", "vaddr\n")
	d := newDamonAdmin(root, filepath.Join(root, "proc"), damonAttrs{sample: time.Millisecond, aggr: 10 * time.Millisecond})
	if got := d.cpu(); got != 0 {
		t.Errorf("cpu without a kdamond = %s, want 0", got)
	}
	stat := func(utime, stime int) {
		line := fmt.Sprintf("77 (kdamond.0) S 2 0 0 0 -1 2129984 0 0 0 0 %d %d 0 0 20 0 1 0 500 0 0\n", utime, stime)
		if err := os.MkdirAll(filepath.Join(root, "proc/77"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "proc/77/stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "kernel/mm/damon/admin/kdamonds/0/pid"), []byte("77\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stat(30, 20)
	if err := d.probe(); err != nil {
		t.Fatal(err)
	}
	target := []damonTarget{{pid: 9, regions: []damonRange{{0, 4096}}}}
	if err := d.apply(target); err != nil {
		t.Fatal(err)
	}
	if got := d.cpu(); got != 500*time.Millisecond {
		t.Errorf("cpu = %s, want 500ms", got)
	}
	if err := d.apply(target); err != nil { // stops the thread: its 0.5 s are kept
		t.Fatal(err)
	}
	stat(1, 0) // the new thread
	if got := d.cpu(); got != 510*time.Millisecond {
		t.Errorf("cpu after a restart = %s, want 510ms", got)
	}
	// The running thread's time is read at most every cpuRefresh.
	now := time.Now()
	d.now = func() time.Time { return now }
	d.thread.read = now
	stat(3, 0)
	if got := d.cpu(); got != 510*time.Millisecond {
		t.Errorf("cpu read again within %s = %s, want the cached 510ms", cpuRefresh, got)
	}
	now = now.Add(cpuRefresh)
	if got := d.cpu(); got != 530*time.Millisecond {
		t.Errorf("cpu %s later = %s, want 530ms", cpuRefresh, got)
	}
	// The thread ends by itself and its pid goes to another process: its
	// last reading is kept and the other process is not counted.
	if err := os.WriteFile(filepath.Join(root, "proc/77/stat"),
		[]byte("77 (sh) S 2 0 0 0 -1 0 0 0 0 0 900 900 0 0 20 0 1 0 900 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now = now.Add(cpuRefresh)
	if got := d.cpu(); got != 530*time.Millisecond {
		t.Errorf("cpu after the thread ended = %s, want the 530ms it had", got)
	}
}
