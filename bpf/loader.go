//go:build linux && (amd64 || arm64)

package bpf

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// objects are the maps every sampler shares plus the one program it runs.
type objects struct {
	Prog *ebpf.Program `ebpf:"prog"`
	kvtierMaps
}

// procHooks lets a sampler act when a process joins or leaves the watch
// list (the uprobe sampler attaches to its binary, damon reconfigures its
// targets). Both are called with the core's lock held.
type procHooks interface {
	addProc(pid uint32) error
	removeProc(pid uint32) error
}

// core is the machinery every sampler shares: the watch list, the two
// epoch count maps, the statistics and the attachments to close.
type core struct {
	name string
	mu   sync.Mutex
	objs objects
	// active is the count map programs write to now.
	active  *ebpf.Map
	regions map[uint32]Region
	procs   map[uint32]int // pid -> watched regions
	maxProc int
	hooks   procHooks
	// watchHook, when set, is told every watch list after a change
	// (damon retargets its kdamond); called with the lock held.
	watchHook func(map[uint32]Region) error
	// statsHook, when set, adds the sampler's own figures to Stats.
	statsHook func(*Stats)
	closers   []io.Closer // detached in reverse order by Close
	drains    uint64
	closed    bool
}

// load loads the shared maps and the program called prog, with the map
// sizes of opts and the constants in consts.
func load(name, prog string, opts Options, consts map[string]any) (*core, error) {
	spec, err := loadKvtier()
	if err != nil {
		return nil, fmt.Errorf("parsing the embedded BPF object: %w", err)
	}
	ps, ok := spec.Programs[prog]
	if !ok {
		return nil, fmt.Errorf("program %s missing from the BPF object", prog)
	}
	for _, m := range []string{kvtierMapCountsA, kvtierMapCountsB} {
		spec.Maps[m].MaxEntries = opts.MaxBlocks
	}
	spec.Maps[kvtierMapEpoch].InnerMap.MaxEntries = opts.MaxBlocks
	spec.Maps[kvtierMapWatch].MaxEntries = opts.MaxProcesses
	spec.Maps[kvtierMapDamonTargets].MaxEntries = opts.MaxProcesses
	for k, v := range consts {
		if err := spec.Variables[k].Set(v); err != nil {
			return nil, fmt.Errorf("setting %s: %w", k, err)
		}
	}
	c := &core{
		name:    name,
		regions: map[uint32]Region{},
		procs:   map[uint32]int{},
		maxProc: int(opts.MaxProcesses),
	}
	// Load only the program this sampler runs: the others may need
	// kernel types this kernel lacks (DAMON's on 6.1).
	spec.Programs = map[string]*ebpf.ProgramSpec{"prog": ps}
	ps.Name = prog
	if err := spec.LoadAndAssign(&c.objs, nil); err != nil {
		return nil, classify(fmt.Errorf("loading BPF program %s: %w", prog, err))
	}
	c.active = c.objs.CountsA
	return c, nil
}

// classify adds this package's sentinel errors to a load or attach error.
func classify(err error) error {
	var ve *ebpf.VerifierError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return err // the verifier's EACCES is no missing privilege
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES), errors.Is(err, os.ErrPermission):
		return permissionError(err)
	case errors.Is(err, ebpf.ErrNotSupported):
		return fmt.Errorf("%w (%w)", err, ErrNotSupported)
	}
	return err
}

// libraryAdvice is what cilium/ebpf appends to an EPERM from creating a
// map or loading a program: advice to the Go programmer, not the user.
const libraryAdvice = " (MEMLOCK may be too low, consider rlimit.RemoveMemlock)"

// classifiedError is an error whose text was rewritten: Error returns msg,
// errors.Is and errors.As see every error in errs.
type classifiedError struct {
	msg  string
	errs []error
}

func (e *classifiedError) Error() string   { return e.msg }
func (e *classifiedError) Unwrap() []error { return e.errs }

// permissionError wraps a refused load or attach with ErrPermission and
// says what the user lacks: root or CAP_BPF and CAP_PERFMON and, when
// cilium/ebpf suspects the locked-memory limit, this kernel charges BPF
// maps to it and it is finite, a higher limit. The library's advice is
// dropped from the text.
func permissionError(err error) error {
	msg := strings.Replace(err.Error(), libraryAdvice, "", 1)
	advised := msg != err.Error()
	need := "need root or CAP_BPF and CAP_PERFMON"
	var rl unix.Rlimit
	var un unix.Utsname
	if advised && unix.Uname(&un) == nil && memlockCharged(unix.ByteSliceToString(un.Release[:])) &&
		unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		need += fmt.Sprintf(", and a locked-memory limit above %d KiB: kernels before 5.11 charge BPF maps to it "+
			"(ulimit -l, or LimitMEMLOCK=infinity as kvtier.service sets)", rl.Cur>>10)
	}
	return &classifiedError{msg: fmt.Sprintf("%s (%v: %s)", msg, ErrPermission, need), errs: []error{err, ErrPermission}}
}

// memlockCharged says whether a kernel of this release (uname -r) charges
// BPF maps to RLIMIT_MEMLOCK: those before 5.11, and any whose release
// does not parse.
func memlockCharged(release string) bool {
	var major, minor int
	if n, _ := fmt.Sscanf(release, "%d.%d", &major, &minor); n != 2 {
		return true
	}
	return major < 5 || major == 5 && minor < 11
}

// closedErr is ErrClosed for what, e.g. "draining": "draining sampler
// fault: sampler closed".
func (c *core) closedErr(what string) error {
	return fmt.Errorf("%s sampler %s: %w", what, c.name, ErrClosed)
}

// Name implements Sampler.
func (c *core) Name() string { return c.name }

// Watch implements Sampler.
func (c *core) Watch(r Region) error {
	if err := r.Validate(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.closedErr(fmt.Sprintf("watching region %d with", r.ID))
	}
	if _, dup := c.regions[r.ID]; dup {
		return fmt.Errorf("region %d is already watched: %w", r.ID, ErrBadRegion)
	}
	n := c.procs[r.PID]
	if n >= MaxRegionsPerProcess {
		return fmt.Errorf("pid %d has %d regions: %w", r.PID, n, ErrTooManyRegions)
	}
	if n == 0 && len(c.procs) >= c.maxProc {
		return fmt.Errorf("%d processes watched: %w", len(c.procs), ErrTooManyRegions)
	}
	for _, o := range c.regions {
		if o.PID == r.PID && r.Start < o.End && o.Start < r.End {
			return fmt.Errorf("region %d (%#x-%#x) overlaps region %d of pid %d: %w",
				r.ID, r.Start, r.End, o.ID, r.PID, ErrBadRegion)
		}
	}
	if n == 0 && c.hooks != nil {
		if err := c.hooks.addProc(r.PID); err != nil {
			return err
		}
	}
	c.regions[r.ID] = r
	c.procs[r.PID] = n + 1
	err := c.writeProc(r.PID)
	if err == nil {
		err = c.changed()
	}
	if err != nil {
		// Back to the list before: the error is the caller's answer.
		_ = c.forget(r)
		_ = c.writeProc(r.PID)
		_ = c.changed()
		return err
	}
	return nil
}

// changed tells the watch hook the watch list after a change.
func (c *core) changed() error {
	if c.watchHook == nil {
		return nil
	}
	return c.watchHook(c.regions)
}

// Unwatch implements Sampler.
func (c *core) Unwatch(id uint32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.closedErr(fmt.Sprintf("unwatching region %d of", id))
	}
	r, ok := c.regions[id]
	if !ok {
		return fmt.Errorf("unwatching region %d: %w", id, ErrNoRegion)
	}
	if err := c.forget(r); err != nil {
		return err
	}
	if err := c.writeProc(r.PID); err != nil {
		return err
	}
	return c.changed()
}

// forget drops r from the bookkeeping (not from the kernel's watch list).
func (c *core) forget(r Region) error {
	delete(c.regions, r.ID)
	c.procs[r.PID]--
	if c.procs[r.PID] > 0 {
		return nil
	}
	delete(c.procs, r.PID)
	if c.hooks != nil {
		return c.hooks.removeProc(r.PID)
	}
	return nil
}

// writeProc writes pid's regions, sorted by address, to the watch map, or
// deletes its entry when it has none.
func (c *core) writeProc(pid uint32) error {
	var rs []Region
	for _, r := range c.regions {
		if r.PID == pid {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		err := c.objs.Watch.Delete(pid)
		if err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("removing pid %d from the watch list: %w", pid, err)
		}
		return nil
	}
	slices.SortFunc(rs, func(a, b Region) int { return cmp.Compare(a.Start, b.Start) })
	var p kvtierWatchProc
	p.N = uint32(len(rs))
	for i, r := range rs {
		p.R[i] = kvtierWatchRegion{Start: r.Start, End: r.End, BlockSize: r.BlockSize, Id: r.ID}
	}
	if err := c.objs.Watch.Put(pid, &p); err != nil {
		return fmt.Errorf("writing the watch list of pid %d: %w", pid, err)
	}
	return nil
}
