package bpf

import (
	"errors"
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
		damonCtx + "targets/0/pid_target":                       "",
		damonCtx + "targets/1/pid_target":                       "",
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

// TestDamonAdmin drives a fixture sysfs tree through probe, two target
// sets and close, checking every value the kernel would receive.
func TestDamonAdmin(t *testing.T) {
	root := damonTree(t, "0\n", "vaddr\nfvaddr\npaddr\n")
	d := newDamonAdmin(root, damonAttrs{sample: 5 * time.Millisecond, aggr: 100 * time.Millisecond, update: time.Second, minRegions: 10, max: 1000})
	if err := d.probe(); err != nil {
		t.Fatal(err)
	}
	if err := d.apply([]uint32{42, 43}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"kernel/mm/damon/admin/kdamonds/nr_kdamonds":            "1",
		"kernel/mm/damon/admin/kdamonds/0/contexts/nr_contexts": "1",
		"kernel/mm/damon/admin/kdamonds/0/state":                "on",
		damonCtx + "operations":                                 "vaddr",
		damonCtx + "monitoring_attrs/intervals/sample_us":       "5000",
		damonCtx + "monitoring_attrs/intervals/aggr_us":         "100000",
		damonCtx + "monitoring_attrs/intervals/update_us":       "1000000",
		damonCtx + "monitoring_attrs/nr_regions/min":            "10",
		damonCtx + "monitoring_attrs/nr_regions/max":            "1000",
		damonCtx + "targets/nr_targets":                         "2",
		damonCtx + "targets/0/pid_target":                       "42",
		damonCtx + "targets/1/pid_target":                       "43",
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
			d := newDamonAdmin(root, damonAttrs{})
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
	if err := newDamonAdmin(t.TempDir(), damonAttrs{}).probe(); !errors.Is(err, ErrNotSupported) {
		t.Errorf("probe without DAMON sysfs = %v, want ErrNotSupported", err)
	}
}
