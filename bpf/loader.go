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
	active     *ebpf.Map
	regions    map[uint32]Region     // id -> region
	procs      map[uint32]*watchList // pid -> its regions, as the kernel has them
	chunks     chunkPool             // free elements of the regions map
	maxProc    int
	maxWatched int
	hooks      procHooks
	// watchHook, when set, is told every watch list after a change
	// (damon retargets its kdamond); called with the lock held.
	watchHook func(map[uint32]Region) error
	// statsHook, when set, adds the sampler's own figures to Stats.
	statsHook func(*Stats)
	closers   []io.Closer // detached in reverse order by Close
	drainBuf  drainBuffers
	statBuf   statBuffers
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
	nchunks := poolChunks(opts.MaxProcesses, opts.MaxWatched)
	spec.Maps[kvtierMapRegions].MaxEntries = nchunks
	for k, v := range consts {
		if err := spec.Variables[k].Set(v); err != nil {
			return nil, fmt.Errorf("setting %s: %w", k, err)
		}
	}
	c := &core{
		name:       name,
		regions:    map[uint32]Region{},
		procs:      map[uint32]*watchList{},
		chunks:     newChunkPool(nchunks),
		maxProc:    int(opts.MaxProcesses),
		maxWatched: int(opts.MaxWatched),
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
	old := c.procs[r.PID]
	var rs []Region
	if old != nil {
		rs = old.rs
	}
	n := len(rs)
	if err := c.roomFor(r.PID, n); err != nil {
		return err
	}
	// k: where r goes in the sorted list; only its neighbours can overlap it.
	k, _ := slices.BinarySearchFunc(rs, r.Start, func(o Region, start uint64) int { return cmp.Compare(o.Start, start) })
	for _, j := range []int{k - 1, k} {
		if j >= 0 && j < n && r.Start < rs[j].End && rs[j].Start < r.End {
			o := rs[j]
			return fmt.Errorf("region %d (%#x-%#x) overlaps region %d of pid %d: %w",
				r.ID, r.Start, r.End, o.ID, r.PID, ErrBadRegion)
		}
	}
	if n == 0 && c.hooks != nil {
		if err := c.hooks.addProc(r.PID); err != nil {
			return err
		}
	}
	l, err := c.publish(r.PID, old, slices.Insert(slices.Clone(rs), k, r), k)
	if err != nil {
		if n == 0 && c.hooks != nil {
			_ = c.hooks.removeProc(r.PID)
		}
		return err
	}
	c.regions[r.ID] = r
	c.procs[r.PID] = l
	if err := c.changed(); err != nil {
		// Back to the list before: the error is the caller's answer.
		delete(c.regions, r.ID)
		if back, perr := c.publish(r.PID, l, rs, k); perr == nil {
			_ = c.setList(r.PID, back)
		}
		_ = c.changed()
		return err
	}
	return nil
}

// roomFor says whether one more region fits for pid, which watches n
// already: the per-process, per-sampler process and max_watched limits
// are checked before anything is published, so a refusal changes nothing.
func (c *core) roomFor(pid uint32, n int) error {
	switch {
	case n >= MaxRegionsPerProcess:
		return fmt.Errorf("pid %d has %d regions, the most one process may have: %w", pid, n, ErrTooManyRegions)
	case n == 0 && len(c.procs) >= c.maxProc:
		return fmt.Errorf("%d processes watched, the most this sampler takes: %w", len(c.procs), ErrTooManyRegions)
	case len(c.regions) >= c.maxWatched:
		return fmt.Errorf("%d regions watched in all, the most this sampler takes (max_watched): %w",
			len(c.regions), ErrTooManyRegions)
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
	l := c.procs[r.PID]
	k, found := slices.BinarySearchFunc(l.rs, r.Start, func(o Region, start uint64) int { return cmp.Compare(o.Start, start) })
	if !found || l.rs[k].ID != id {
		return fmt.Errorf("unwatching region %d: not in the list of pid %d (a kvtier bug)", id, r.PID)
	}
	nl, err := c.publish(r.PID, l, slices.Delete(slices.Clone(l.rs), k, k+1), k)
	if err != nil {
		return err
	}
	delete(c.regions, id)
	return errors.Join(c.setList(r.PID, nl), c.changed())
}

// setList records nl, which publish wrote, as pid's list; an empty one
// drops pid and tells the hooks.
func (c *core) setList(pid uint32, nl *watchList) error {
	if len(nl.rs) > 0 {
		c.procs[pid] = nl
		return nil
	}
	delete(c.procs, pid)
	if c.hooks != nil {
		return c.hooks.removeProc(pid)
	}
	return nil
}

// chunkRegions is how many regions one element of the regions map holds
// (CHUNK_REGIONS in kvtier.h), maxChunks how many chunks one process's
// list may take (MAX_CHUNKS).
const (
	chunkRegions = 128
	maxChunks    = MaxRegionsPerProcess / chunkRegions
)

// The generated types must agree (a compile error otherwise).
var (
	_ [chunkRegions]kvtierWatchRegion = kvtierWatchChunk{}.R
	_ [maxChunks]uint32               = kvtierWatchProc{}.Chunk
)

// poolChunks is the size of the regions map that holds every list of up
// to maxProcs processes and maxWatched regions in all: each process's last
// chunk may be partly empty, and a change writes up to maxChunks new
// chunks before it frees the ones they replace.
func poolChunks(maxProcs, maxWatched uint32) uint32 {
	return maxProcs + uint32((uint64(maxWatched)+chunkRegions-1)/chunkRegions) + maxChunks
}

// watchList is one process's regions sorted by Start, and the elements of
// the regions map that hold them in the kernel: chunks[i] holds rs[i *
// chunkRegions:] up to chunkRegions of them.
type watchList struct {
	rs     []Region
	chunks []uint32
}

// chunkPool is the free elements of the regions map, taken first in, first
// out: a BPF program that read a process's list just before it changed may
// still be reading the chunks that change freed, and the queue puts every
// other free chunk before them.
type chunkPool struct{ free []uint32 }

func newChunkPool(n uint32) chunkPool {
	p := chunkPool{free: make([]uint32, n)}
	for i := range p.free {
		p.free[i] = uint32(i)
	}
	return p
}

func (p *chunkPool) take() (uint32, bool) {
	if len(p.free) == 0 {
		return 0, false
	}
	id := p.free[0]
	p.free = p.free[1:]
	return id, true
}

func (p *chunkPool) give(ids ...uint32) { p.free = append(p.free, ids...) }

// publish makes rs (sorted, not overlapping, at most MaxRegionsPerProcess)
// pid's watch list in the kernel, in place of old (nil: none), from which
// it differs from index from on. It writes the chunks from the one holding
// rs[from] on to free elements of the regions map, then replaces pid's
// watch entry (deletes it when rs is empty), then frees old's chunks that
// the new list no longer names. A BPF program sees the old list or the new
// one, never a mix. On error nothing changed.
func (c *core) publish(pid uint32, old *watchList, rs []Region, from int) (*watchList, error) {
	var kept []uint32
	if old != nil {
		kept = old.chunks[:min(from/chunkRegions, len(old.chunks))]
	}
	nl := &watchList{rs: rs, chunks: slices.Clone(kept)}
	fail := func(err error) (*watchList, error) {
		c.chunks.give(nl.chunks[len(kept):]...)
		return nil, err
	}
	for i := len(kept) * chunkRegions; i < len(rs); i += chunkRegions {
		id, ok := c.chunks.take()
		if !ok {
			return fail(fmt.Errorf("writing the watch list of pid %d: all %d chunks of %d regions in use: %w",
				pid, c.objs.Regions.MaxEntries(), chunkRegions, ErrTooManyRegions))
		}
		nl.chunks = append(nl.chunks, id)
		var ch kvtierWatchChunk
		for j, r := range rs[i:min(i+chunkRegions, len(rs))] {
			ch.R[j] = kvtierWatchRegion{Start: r.Start, End: r.End, BlockSize: r.BlockSize, Id: r.ID}
		}
		if err := c.objs.Regions.Put(id, &ch); err != nil {
			return fail(fmt.Errorf("writing the watch list of pid %d: %w", pid, err))
		}
	}
	if len(rs) == 0 {
		err := c.objs.Watch.Delete(pid)
		if err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fail(fmt.Errorf("removing pid %d from the watch list: %w", pid, err))
		}
	} else {
		p := kvtierWatchProc{N: uint32(len(rs))}
		copy(p.Chunk[:], nl.chunks)
		if err := c.objs.Watch.Put(pid, &p); err != nil {
			return fail(fmt.Errorf("writing the watch list of pid %d: %w", pid, err))
		}
	}
	if old != nil {
		c.chunks.give(old.chunks[len(kept):]...)
	}
	return nl, nil
}
