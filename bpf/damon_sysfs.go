package bpf

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kvtier/kvtier/numa"
)

// damonAdmin drives DAMON's sysfs interface (<sys>/kernel/mm/damon/admin,
// Documentation/ABI/testing/sysfs-kernel-mm-damon): one kdamond with one
// vaddr context whose targets are the watched processes, each monitored
// only in its watched regions, cut at block boundaries (damonLayout).
type damonAdmin struct {
	root     string // .../damon/admin
	procRoot string
	owned    bool // kvtier created kdamond 0
	// cpuDone is the CPU time of kvtier's kdamond threads that have
	// ended (every apply restarts the thread).
	cpuDone time.Duration
	// thread caches the running kdamond's CPU time (see cpu).
	thread  threadCPU
	now     func() time.Time
	attrs   damonAttrs
	targets []damonTarget // in index order
	wrFile  func(path, value string) error
}

// damonAttrs are the monitoring attributes kvtier gives its kdamond.
type damonAttrs struct {
	sample, aggr time.Duration
	// maxRegions caps the DAMON regions of all targets together; blocks
	// are grouped when there are more.
	maxRegions uint32
	// perBlock is the DAMON regions a block gets while maxRegions has
	// room (0: DefaultRegionsPerBlock).
	perBlock uint32
}

// damonRange is one DAMON region: [start, end).
type damonRange struct{ start, end uint64 }

// damonTarget is one monitored process and its initial regions.
type damonTarget struct {
	pid     uint32
	regions []damonRange
}

func newDamonAdmin(sysRoot, procRoot string, attrs damonAttrs) *damonAdmin {
	return &damonAdmin{root: filepath.Join(sysRoot, "kernel/mm/damon/admin"), procRoot: procRoot,
		attrs: attrs, wrFile: writeFile, now: time.Now}
}

// cpuRefresh is how old the running kdamond's CPU time may be when cpu
// reports it. Reading it means reading /proc/PID/stat, which costs about
// 5 ms of the daemon's time a read under emulation (TCG), more than the
// rest of a quiet epoch; the daemon asks every epoch.
const cpuRefresh = 5 * time.Second

// threadCPU is the running kdamond thread's pid and CPU time when last
// read (pid 0: none found then; read zero: read at the next cpu).
type threadCPU struct {
	pid  int
	cpu  time.Duration
	read time.Time
}

// cpu is the CPU time kvtier's kdamond threads used, the running one
// included, that one as read at most cpuRefresh ago.
func (d *damonAdmin) cpu() time.Duration {
	if d.thread.read.IsZero() || d.now().Sub(d.thread.read) >= cpuRefresh {
		d.readThreadCPU()
	}
	return d.cpuDone + d.thread.cpu
}

// readThreadCPU reads the CPU time of the running kdamond thread into
// d.thread. The thread's pid is read from sysfs once a thread; a thread
// found gone (kdamond ends by itself when its processes exit, and its pid
// may then name another process) has its last reading kept in cpuDone.
func (d *damonAdmin) readThreadCPU() {
	d.thread.read = d.now()
	if d.thread.pid == 0 {
		if d.thread.pid = d.kdamondPID(); d.thread.pid == 0 {
			return
		}
	}
	st, err := numa.ReadStat(d.procRoot, d.thread.pid)
	if err != nil || !strings.HasPrefix(st.Comm, "kdamond") {
		d.endThread()
		d.thread.read = d.now() // read again in cpuRefresh, not at every cpu
		return
	}
	d.thread.cpu = st.CPU()
}

// kdamondPID is the pid of kvtier's kdamond thread, 0 when none runs or
// it cannot be read.
func (d *damonAdmin) kdamondPID() int {
	raw, err := os.ReadFile(d.path("0", "pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// endThread keeps the ended thread's last reading in cpuDone and forgets
// the thread, so that the next cpu reads the next thread's at once.
func (d *damonAdmin) endThread() {
	d.cpuDone += d.thread.cpu
	d.thread = threadCPU{}
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

// opsUpdate is the vaddr operations' update interval kvtier sets: a day.
// At every update vaddr resets each target's regions to the three big
// areas of its whole address space (damon_va_update), which would undo
// the block-aligned regions; kvtier re-applies its targets whenever its
// watch list changes, so it never needs that update.
const opsUpdate = 24 * time.Hour

// apply (re)starts the kdamond on targets, or stops it when there are
// none. The number of regions is both the minimum and the maximum: with
// min_nr_regions equal to the number of regions, DAMON's size limit for a
// merged region is the mean region size, so two regions never merge
// across a block boundary, and with max_nr_regions no more than twice the
// number of regions DAMON never splits them. Every region thus stays
// exactly the blocks kvtier set, and each aggregation reports every block.
func (d *damonAdmin) apply(targets []damonTarget) error {
	if err := d.stop(); err != nil {
		return err
	}
	d.targets = append(d.targets[:0], targets...)
	if len(targets) == 0 {
		return nil
	}
	n := 0
	for _, t := range targets {
		n += len(t.regions)
	}
	nr := strconv.Itoa(max(n, 3)) // DAMON wants at least 3
	a := d.attrs
	writes := [][2]string{
		{d.ctx("monitoring_attrs", "intervals", "sample_us"), us(a.sample)},
		{d.ctx("monitoring_attrs", "intervals", "aggr_us"), us(a.aggr)},
		{d.ctx("monitoring_attrs", "intervals", "update_us"), us(opsUpdate)},
		// max before min: the kernel checks min <= max on "on", but a
		// smaller max than the old min reads oddly in between.
		{d.ctx("monitoring_attrs", "nr_regions", "max"), nr},
		{d.ctx("monitoring_attrs", "nr_regions", "min"), nr},
		{d.ctx("targets", "nr_targets"), strconv.Itoa(len(targets))},
	}
	for i, t := range targets {
		writes = append(writes, d.targetWrites(i, t)...)
	}
	writes = append(writes, [2]string{d.path("0", "state"), "on"})
	for _, w := range writes {
		if err := d.wrFile(w[0], w[1]); err != nil {
			return err
		}
	}
	return nil
}

// targetWrites are the writes that set target i: its pid and regions.
func (d *damonAdmin) targetWrites(i int, t damonTarget) [][2]string {
	ti := strconv.Itoa(i)
	w := [][2]string{
		{d.ctx("targets", ti, "pid_target"), strconv.FormatUint(uint64(t.pid), 10)},
		{d.ctx("targets", ti, "regions", "nr_regions"), strconv.Itoa(len(t.regions))},
	}
	for j, r := range t.regions {
		rj := strconv.Itoa(j)
		w = append(w,
			[2]string{d.ctx("targets", ti, "regions", rj, "start"), strconv.FormatUint(r.start, 10)},
			[2]string{d.ctx("targets", ti, "regions", rj, "end"), strconv.FormatUint(r.end, 10)})
	}
	return w
}

func us(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) }

// stop turns kvtier's kdamond off if it runs.
func (d *damonAdmin) stop() error {
	st, err := os.ReadFile(d.path("0", "state"))
	if err != nil {
		return fmt.Errorf("reading kdamond state: %w", err)
	}
	if strings.TrimSpace(string(st)) != "on" {
		d.endThread() // it ended by itself: its last reading is kept
		return nil
	}
	d.readThreadCPU()
	d.endThread()
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
