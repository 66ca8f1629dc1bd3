//go:build linux && (amd64 || arm64)

package bpf

import (
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

// watchModel is what the kernel's watch list of one process should hold.
type watchModel map[uint32]Region

// fault is the blocks an access of one byte at a counts in the model.
func (m watchModel) fault(a uint64, want map[blockKey]uint64) {
	for _, r := range m {
		if a >= r.Start && a < r.End {
			want[blockKey{r.ID, uint32((a - r.Start) / r.BlockSize)}]++
			return
		}
	}
}

// damon is the blocks a DAMON region [start, end) with n accesses counts.
func (m watchModel) damon(start, end, n uint64, want map[blockKey]uint64) {
	for _, r := range m {
		lo, hi := max(start, r.Start), min(end, r.End)
		if lo >= hi {
			continue
		}
		for b := (lo - r.Start) / r.BlockSize; b <= (hi-1-r.Start)/r.BlockSize; b++ {
			want[blockKey{r.ID, uint32(b)}] += n
		}
	}
}

// TestWatchListSearch drives the search of the BPF programs through
// BPF_PROG_TEST_RUN (no faults, no DAMON: on_fault and on_damon_test run
// with addresses of this process that the test picks): up to
// MaxRegionsPerProcess regions of random sizes, gaps and block sizes
// (multiples of the page size, most not powers of two) are watched and
// unwatched in random order, and after each round every region's first
// and last byte, a byte inside, the gaps, and DAMON ranges across several
// regions are counted where a linear scan says.
func TestWatchListSearch(t *testing.T) {
	requireRoot(t)
	opts := Options{}.withDefaults()
	fault, err := load("fault-test", kvtierProgOnFault, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fault.Close()
	damon, err := load("damon-test", kvtierProgOnDamonTest, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer damon.Close()

	pid := uint32(os.Getpid())
	rng := rand.New(rand.NewPCG(3, 4))
	ws := &searchWatches{cores: []*core{fault, damon}, rng: rng, pid: pid, model: watchModel{},
		slotOf: map[uint32]int{}, used: map[int]bool{}}
	for round, target := range []int{300, MaxRegionsPerProcess, 1500, 10} {
		ws.resize(t, round, target)
		checkFaultSearch(t, fault, ws.model, rng, round)
		n := checkDamonSearch(t, damon, ws.model, rng, pid, round)
		t.Logf("round %d: %d regions, %d DAMON blocks counted", round, len(ws.model), n)
	}
}

// searchSlots is how many slots of 64 pages, from 0x10000000, the regions
// of TestWatchListSearch are placed in: slot i may hold one region (not
// overlapping another slot's), of 1 to 64 pages, starting 0 to 63 pages in.
const searchSlots = MaxRegionsPerProcess + 512

// searchWatches is the regions TestWatchListSearch has watched with every
// core of cores, and where: model by ID, ids in the order watched, the
// slot of each and the slots in use.
type searchWatches struct {
	cores  []*core
	rng    *rand.Rand
	pid    uint32
	model  watchModel
	ids    []uint32
	lastID uint32
	slotOf map[uint32]int
	used   map[int]bool
}

// resize unwatches regions at random down to target, or watches new ones
// of random sizes, offsets and block sizes (multiples of the page size,
// most not powers of two) up to it.
func (w *searchWatches) resize(t *testing.T, round, target int) {
	t.Helper()
	for len(w.model) > target {
		i := w.rng.IntN(len(w.ids))
		id := w.ids[i]
		w.ids = slices.Delete(w.ids, i, i+1)
		for _, c := range w.cores {
			if err := c.Unwatch(id); err != nil {
				t.Fatal(err)
			}
		}
		delete(w.used, w.slotOf[id])
		delete(w.model, id)
	}
	for len(w.model) < target {
		slot := w.rng.IntN(searchSlots)
		if w.used[slot] {
			continue
		}
		pages := 1 + w.rng.Uint64N(64)
		off := w.rng.Uint64N(64 - pages + 1)
		w.lastID++
		r := Region{ID: w.lastID, PID: w.pid, Start: 0x10000000 + (uint64(slot)*64+off)*page,
			BlockSize: (1 + w.rng.Uint64N(7)) * page}
		r.End = r.Start + pages*page
		for _, c := range w.cores {
			if err := c.Watch(r); err != nil {
				t.Fatalf("round %d: Watch(%+v): %v", round, r, err)
			}
		}
		w.used[slot], w.slotOf[r.ID], w.model[r.ID] = true, slot, r
		w.ids = append(w.ids, r.ID)
	}
}

// runProg runs p once with BPF_PROG_TEST_RUN and args as its context,
// skipping the test where the kernel cannot test-run raw tracepoints.
func runProg(t *testing.T, p *ebpf.Program, args ...uint64) {
	t.Helper()
	if _, err := p.Run(&ebpf.RunOptions{Context: args}); err != nil {
		if errors.Is(err, ebpf.ErrNotSupported) {
			t.Skipf("BPF_PROG_TEST_RUN of raw tracepoints: %v", err)
		}
		t.Fatal(err)
	}
}

// checkFaultSearch runs fault's program on every region's first and last
// byte, a byte inside and the bytes just outside, and checks the drained
// counts against model's linear scan.
func checkFaultSearch(t *testing.T, fault *core, model watchModel, rng *rand.Rand, round int) {
	t.Helper()
	want := map[blockKey]uint64{}
	for _, r := range model {
		for _, a := range []uint64{r.Start, r.End - 1, r.Start + rng.Uint64N(r.End-r.Start), r.Start - 1, r.End} {
			runProg(t, fault.objs.Prog, a, 0, 2)
			model.fault(a, want)
		}
	}
	got := drainAccesses(t, fault)
	if !maps.Equal(got, want) {
		t.Fatalf("round %d (%d regions): fault counts differ from the model: %s", round, len(model), diffCounts(got, want))
	}
}

// checkDamonSearch runs damon's program on 500 random ranges, most across
// several regions, and checks the drained counts against model's linear
// scan; it returns how many blocks were counted.
func checkDamonSearch(t *testing.T, damon *core, model watchModel, rng *rand.Rand, pid uint32, round int) int {
	t.Helper()
	want := map[blockKey]uint64{}
	for range 500 {
		start := 0x10000000 + rng.Uint64N(searchSlots*64*page)
		end := start + 1 + rng.Uint64N(2*64*page)
		n := 1 + rng.Uint64N(20)
		runProg(t, damon.objs.Prog, uint64(pid), start, end, n)
		model.damon(start, end, n, want)
	}
	got := drainAccesses(t, damon)
	if !maps.Equal(got, want) {
		t.Fatalf("round %d (%d regions): DAMON counts differ from the model: %s", round, len(model), diffCounts(got, want))
	}
	return len(want)
}

// diffCounts describes up to 10 blocks whose counts differ.
func diffCounts(got, want map[blockKey]uint64) string {
	var d []string
	for k := range maps.Keys(want) {
		if got[k] != want[k] {
			d = append(d, fmt.Sprintf("%v: got %d want %d", k, got[k], want[k]))
		}
	}
	for k := range maps.Keys(got) {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%v: got %d want 0", k, got[k]))
		}
	}
	slices.Sort(d)
	return fmt.Sprintf("%d differ: %s", len(d), strings.Join(d[:min(10, len(d))], "; "))
}
