//go:build linux && (amd64 || arm64)

package bpf

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
)

// blockKey names one counted block.
type blockKey struct{ region, block uint32 }

// drainAccesses drains s and returns the accesses of each block.
func drainAccesses(t *testing.T, s Sampler) map[blockKey]uint64 {
	t.Helper()
	counts, err := s.Drain(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[blockKey]uint64{}
	for _, c := range counts {
		got[blockKey{c.Region, c.Block}] = c.Accesses
	}
	return got
}

// TestWatchManyRegions watches MaxRegionsPerProcess regions of this
// process (in random order), faults pages in the first, a middle and the
// last, and checks each fault is counted in its region and block; one
// more region is refused with ErrTooManyRegions; after two Unwatch calls
// (the first region and a middle one) the neighbours still count right,
// the unwatched regions not at all, and one more region fits again.
func TestWatchManyRegions(t *testing.T) {
	for _, name := range []string{"fault", "sw-page-faults"} {
		t.Run(name, func(t *testing.T) {
			s := openOrSkip(t, name, Options{})
			const n = MaxRegionsPerProcess
			// Region i: pages 3i and 3i+1 (blocks 0 and 1); page 3i+2 is
			// outside every region.
			mem := freshMap(t, 3*n*page)
			base := addr(mem)
			pid := uint32(os.Getpid())
			region := func(i int) Region {
				start := base + uint64(3*i*page)
				return Region{ID: uint32(i + 1), PID: pid, Start: start, End: start + 2*page, BlockSize: page}
			}
			watchShuffled(t, s, n, region)
			mid := n / 2
			touchPages(mem, []int{1, 3 * mid, 3*(n-1) + 1, 3*100 + 2})
			want := map[blockKey]uint64{{1, 1}: 1, {uint32(mid + 1), 0}: 1, {n, 1}: 1}
			if got := drainAccesses(t, s); !maps.Equal(got, want) {
				t.Fatalf("drained %v, want %v", got, want)
			}

			gap := Region{ID: 100000, PID: pid, Start: base + 602*page, End: base + 603*page, BlockSize: page}
			err := s.Watch(gap)
			if !errors.Is(err, ErrTooManyRegions) || !strings.Contains(err.Error(), fmt.Sprint(n)) {
				t.Fatalf("Watch of region %d = %v, want ErrTooManyRegions naming %d", n+1, err, n)
			}

			for _, i := range []int{0, mid} {
				if err := s.Unwatch(region(i).ID); err != nil {
					t.Fatal(err)
				}
			}
			// Unwatched: pages 0 and 3*mid+1. Neighbours: region 1
			// (block 0), mid-1 (block 1), mid+1 (block 0), the last
			// (block 0).
			touchPages(mem, []int{0, 3*mid + 1, 3, 3*(mid-1) + 1, 3 * (mid + 1), 3 * (n - 1)})
			want = map[blockKey]uint64{{2, 0}: 1, {uint32(mid), 1}: 1, {uint32(mid + 2), 0}: 1, {n, 0}: 1}
			if got := drainAccesses(t, s); !maps.Equal(got, want) {
				t.Fatalf("after Unwatch drained %v, want %v", got, want)
			}

			if err := s.Watch(gap); err != nil {
				t.Fatalf("Watch after Unwatch: %v", err)
			}
			touchPages(mem, []int{602})
			want = map[blockKey]uint64{{gap.ID, 0}: 1}
			if got := drainAccesses(t, s); !maps.Equal(got, want) {
				t.Fatalf("drained %v, want %v", got, want)
			}
			checkManyStats(t, s)
		})
	}
}

// watchShuffled watches region(i) for i in [0, n), in a fixed random
// order, so that the list is not built by appending only.
func watchShuffled(t *testing.T, s Sampler, n int, region func(int) Region) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, i := range rng.Perm(n) {
		if err := s.Watch(region(i)); err != nil {
			t.Fatalf("Watch(%d): %v", i, err)
		}
	}
}

// checkManyStats checks the sampler's counters after TestWatchManyRegions'
// touches: the faults outside every region (pages 302, 0, 3*mid+1) and
// the 8 in one, with no drops.
func checkManyStats(t *testing.T, s Sampler) {
	t.Helper()
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Outside < 3 || st.Drops != 0 {
		t.Errorf("stats %+v: want >= 3 outside (pages 302, 0, 3*mid+1), no drops", st)
	}
	if st.Matched != 8 {
		t.Errorf("stats %+v: want 8 matched", st)
	}
}

// TestWatchBlockNotPowerOfTwo: blocks of 3 pages (12288 bytes) in a
// region of 31 pages, whose last block is one page, are counted exactly.
func TestWatchBlockNotPowerOfTwo(t *testing.T) {
	for _, name := range []string{"fault", "sw-page-faults"} {
		t.Run(name, func(t *testing.T) {
			s := openOrSkip(t, name, Options{})
			mem := freshMap(t, 32*page)
			r := Region{ID: 9, PID: uint32(os.Getpid()), Start: addr(mem), End: addr(mem) + 31*page, BlockSize: 3 * page}
			if err := s.Watch(r); err != nil {
				t.Fatal(err)
			}
			touchPages(mem, []int{0, 2, 3, 17, 29, 30, 31})
			want := map[blockKey]uint64{{9, 0}: 2, {9, 1}: 1, {9, 5}: 1, {9, 9}: 1, {9, 10}: 1}
			if got := drainAccesses(t, s); !maps.Equal(got, want) {
				t.Fatalf("drained %v, want %v", got, want)
			}
		})
	}
}

// TestWatchListChunks checks the Go side's bookkeeping of the regions map
// after random Watch and Unwatch calls: every process's watch entry names
// chunks that hold its regions in order, no chunk is named twice, and the
// free chunks are exactly the others.
func TestWatchListChunks(t *testing.T) {
	requireRoot(t)
	opts := Options{MaxProcesses: 4, MaxWatched: 3 * MaxRegionsPerProcess}.withDefaults()
	c, err := load("chunks-test", kvtierProgOnDamonTest, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	var ids []uint32
	next := uint32(1)
	for step := range 12000 {
		if len(ids) > 0 && rng.IntN(3) == 0 {
			i := rng.IntN(len(ids))
			if err := c.Unwatch(ids[i]); err != nil {
				t.Fatal(err)
			}
			ids = slices.Delete(ids, i, i+1)
		} else {
			pid := uint32(1 + rng.IntN(3))
			start := uint64(rng.IntN(8192)) * page
			err := c.Watch(Region{ID: next, PID: pid, Start: start, End: start + page, BlockSize: page})
			switch {
			case err == nil:
				ids = append(ids, next)
				next++
			case !errors.Is(err, ErrBadRegion) && !errors.Is(err, ErrTooManyRegions):
				t.Fatal(err)
			}
		}
		if step%1000 == 999 {
			checkChunks(t, c)
		}
	}
	checkChunks(t, c)
}

func checkChunks(t *testing.T, c *core) {
	t.Helper()
	named := map[uint32]bool{}
	n := 0
	for pid, l := range c.procs {
		var p kvtierWatchProc
		if err := c.objs.Watch.Lookup(pid, &p); err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		if int(p.N) != len(l.rs) || !slices.Equal(p.Chunk[:len(l.chunks)], l.chunks) {
			t.Fatalf("pid %d: kernel has %d regions in chunks %v, Go %d in %v", pid, p.N, p.Chunk, len(l.rs), l.chunks)
		}
		if !slices.IsSortedFunc(l.rs, func(a, b Region) int { return cmp.Compare(a.Start, b.Start) }) {
			t.Fatalf("pid %d: regions not sorted", pid)
		}
		for i, id := range l.chunks {
			if named[id] {
				t.Fatalf("chunk %d named twice", id)
			}
			named[id] = true
			var ch kvtierWatchChunk
			if err := c.objs.Regions.Lookup(id, &ch); err != nil {
				t.Fatal(err)
			}
			for j, r := range l.rs[i*chunkRegions : min((i+1)*chunkRegions, len(l.rs))] {
				if k := ch.R[j]; k.Start != r.Start || k.End != r.End || k.Id != r.ID || k.BlockSize != r.BlockSize {
					t.Fatalf("pid %d region %d: kernel has %+v, Go %+v", pid, i*chunkRegions+j, k, r)
				}
			}
		}
		n += len(l.rs)
	}
	if n != len(c.regions) {
		t.Fatalf("%d regions in the lists, %d watched", n, len(c.regions))
	}
	free := map[uint32]bool{}
	for _, id := range c.chunks.free {
		if named[id] || free[id] {
			t.Fatalf("chunk %d free twice or free and named", id)
		}
		free[id] = true
	}
	if total := len(named) + len(free); uint32(total) != c.objs.Regions.MaxEntries() {
		t.Fatalf("%d chunks named, %d free, the map has %d", len(named), len(free), c.objs.Regions.MaxEntries())
	}
}

// TestDamonEvents: a DAMON region within one block counts an event of it
// (one aggregation interval: a separate observation); one across several
// blocks counts their accesses but no event, since a single pass over the
// merged region would otherwise look like separate reads of each block.
func TestDamonEvents(t *testing.T) {
	requireRoot(t)
	damon, err := load("damon-events", kvtierProgOnDamonTest, Options{}.withDefaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer damon.Close()
	const base, bs = 0x10000000, 4 * page
	pid := uint32(os.Getpid())
	if err := damon.Watch(Region{ID: 5, PID: pid, Start: base, End: base + 4*bs, BlockSize: bs}); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][3]uint64{{base + bs, base + 2*bs, 3}, {base + 2*bs, base + 4*bs, 2}} {
		if _, err := damon.objs.Prog.Run(&ebpf.RunOptions{Context: []uint64{uint64(pid), r[0], r[1], r[2]}}); err != nil {
			if errors.Is(err, ebpf.ErrNotSupported) {
				t.Skipf("BPF_PROG_TEST_RUN of raw tracepoints: %v", err)
			}
			t.Fatal(err)
		}
	}
	counts, err := damon.Drain(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32][2]uint64{1: {3, 1}, 2: {2, 0}, 3: {2, 0}} // block: accesses, events
	got := map[uint32][2]uint64{}
	for _, c := range counts {
		got[c.Block] = [2]uint64{c.Accesses, c.Events}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("DAMON counts (block: accesses, events) %v, want %v", got, want)
	}
}
