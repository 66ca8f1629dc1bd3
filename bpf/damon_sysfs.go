package bpf

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// damonAdmin drives DAMON's sysfs interface (<sys>/kernel/mm/damon/admin,
// Documentation/ABI/testing/sysfs-kernel-mm-damon): one kdamond with one
// vaddr context whose targets are the watched processes.
type damonAdmin struct {
	root   string // .../damon/admin
	owned  bool   // kvtier created kdamond 0
	attrs  damonAttrs
	pids   []uint32 // targets in index order
	wrFile func(path, value string) error
}

type damonAttrs struct {
	sample, aggr, update time.Duration
	minRegions, max      uint32
}

func newDamonAdmin(sysRoot string, attrs damonAttrs) *damonAdmin {
	return &damonAdmin{root: filepath.Join(sysRoot, "kernel/mm/damon/admin"), attrs: attrs, wrFile: writeFile}
}

func writeFile(path, value string) error {
	if err := os.WriteFile(path, []byte(value), 0); err != nil {
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return nil
}

func (d *damonAdmin) path(p ...string) string {
	return filepath.Join(append([]string{d.root, "kdamonds"}, p...)...)
}

func (d *damonAdmin) ctx(p ...string) string {
	return d.path(append([]string{"0", "contexts", "0"}, p...)...)
}

// probe checks that DAMON sysfs exists, that vaddr is available and that
// nobody else has kdamonds; it then creates kvtier's kdamond (not started).
func (d *damonAdmin) probe() error {
	nrFile := d.path("nr_kdamonds")
	nr, err := readUint(nrFile)
	if os.IsNotExist(err) {
		return fmt.Errorf("no DAMON sysfs interface at %s (CONFIG_DAMON_SYSFS): %w", d.root, ErrNotSupported)
	}
	if err != nil {
		return err
	}
	// Existing contexts list the operations sets: reading them disturbs
	// nobody, and tells vaddr's absence before ownership.
	avail, _ := filepath.Glob(d.path("*", "contexts", "*", "avail_operations"))
	for _, f := range avail {
		if err := requireVaddr(f); err != nil {
			return err
		}
	}
	if nr > 0 {
		states := []string{}
		for i := range nr {
			st, _ := os.ReadFile(d.path(strconv.FormatUint(i, 10), "state"))
			states = append(states, fmt.Sprintf("kdamond %d %s", i, strings.TrimSpace(string(st))))
		}
		return fmt.Errorf("%s is %d (%s): another DAMON user owns them: %w", nrFile, nr, strings.Join(states, ", "), ErrBusy)
	}
	if err := d.wrFile(nrFile, "1"); err != nil {
		return err
	}
	d.owned = true
	if err := d.wrFile(d.path("0", "contexts", "nr_contexts"), "1"); err != nil {
		return err
	}
	if err := requireVaddr(d.ctx("avail_operations")); err != nil {
		return err
	}
	return d.wrFile(d.ctx("operations"), "vaddr")
}

func requireVaddr(file string) error {
	raw, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil // before avail_operations (5.18): the operations write tells
	}
	if err != nil {
		return err
	}
	for _, op := range strings.Fields(string(raw)) {
		if op == "vaddr" {
			return nil
		}
	}
	return fmt.Errorf("DAMON vaddr operations unavailable (%s lists %q): %w",
		file, strings.Join(strings.Fields(string(raw)), " "), ErrNotSupported)
}

// apply (re)starts the kdamond on pids, or stops it when pids is empty.
func (d *damonAdmin) apply(pids []uint32) error {
	if err := d.stop(); err != nil {
		return err
	}
	d.pids = append(d.pids[:0], pids...)
	if len(pids) == 0 {
		return nil
	}
	a := d.attrs
	writes := [][2]string{
		{d.ctx("monitoring_attrs", "intervals", "sample_us"), us(a.sample)},
		{d.ctx("monitoring_attrs", "intervals", "aggr_us"), us(a.aggr)},
		{d.ctx("monitoring_attrs", "intervals", "update_us"), us(a.update)},
		{d.ctx("monitoring_attrs", "nr_regions", "min"), strconv.FormatUint(uint64(a.minRegions), 10)},
		{d.ctx("monitoring_attrs", "nr_regions", "max"), strconv.FormatUint(uint64(a.max), 10)},
		{d.ctx("targets", "nr_targets"), strconv.Itoa(len(pids))},
	}
	for i, pid := range pids {
		writes = append(writes, [2]string{d.ctx("targets", strconv.Itoa(i), "pid_target"), strconv.FormatUint(uint64(pid), 10)})
	}
	writes = append(writes, [2]string{d.path("0", "state"), "on"})
	for _, w := range writes {
		if err := d.wrFile(w[0], w[1]); err != nil {
			return err
		}
	}
	return nil
}

func us(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }

// stop turns kvtier's kdamond off if it runs.
func (d *damonAdmin) stop() error {
	st, err := os.ReadFile(d.path("0", "state"))
	if err != nil {
		return fmt.Errorf("reading kdamond state: %w", err)
	}
	if strings.TrimSpace(string(st)) != "on" {
		return nil
	}
	return d.wrFile(d.path("0", "state"), "off")
}

// close stops and removes kvtier's kdamond.
func (d *damonAdmin) close() error {
	if !d.owned {
		return nil
	}
	d.owned = false
	err := d.stop()
	if werr := d.wrFile(d.path("nr_kdamonds"), "0"); err == nil {
		err = werr
	}
	return err
}
