//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf/link"
)

// TestFaultSamplersSeeExactlyTouchedBlocks touches a known set of pages in
// a watched region and in memory outside it; the drained counts must name
// exactly the touched blocks, with one access per touched page.
func TestFaultSamplersSeeExactlyTouchedBlocks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes bool // the source tells writes apart
	}{
		{"fault", true},
		{"sw-page-faults", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openOrSkip(t, tc.name, Options{})
			const blockPages = 4
			in := freshMap(t, 64*page)
			out := freshMap(t, 16*page)
			r := Region{ID: 7, PID: uint32(os.Getpid()), Start: addr(in), End: addr(in) + 64*page, BlockSize: blockPages * page}
			if err := s.Watch(r); err != nil {
				t.Fatal(err)
			}
			// Blocks 0, 3 and 15; two pages of block 3.
			touchPages(in, []int{0, 12, 13, 63})
			touchPages(out, []int{0, 1, 2, 3})
			counts, err := s.Drain(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := map[uint32]uint64{0: 1, 3: 2, 15: 1}
			if len(counts) != len(want) {
				t.Fatalf("drained %+v, want blocks %v", counts, want)
			}
			for _, c := range counts {
				if c.Region != 7 || want[c.Block] != c.Accesses {
					t.Errorf("count %+v, want region 7 and blocks %v", c, want)
				}
				if c.Events != c.Accesses { // a fault is one event
					t.Errorf("count %+v: events %d, want %d", c, c.Events, c.Accesses)
				}
				if tc.writes && c.Writes != c.Accesses {
					t.Errorf("count %+v: writes %d, want %d", c, c.Writes, c.Accesses)
				}
				if c.LastSeen == 0 {
					t.Errorf("count %+v has no last-seen time", c)
				}
			}
			again, err := s.Drain(nil)
			if err != nil || len(again) != 0 {
				t.Fatalf("second drain = %+v, %v; want nothing", again, err)
			}
			st, err := s.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if st.Matched != 4 || st.Drops != 0 || st.Outside < 4 || st.Drains != 2 {
				t.Errorf("stats %+v: want 4 matched, no drops, >= 4 outside, 2 drains", st)
			}
		})
	}
}

func TestOpenUnknown(t *testing.T) {
	if _, err := Open("nope", Options{}); !errors.Is(err, ErrUnknownSampler) {
		t.Fatalf("Open(nope) = %v, want ErrUnknownSampler", err)
	}
}

// TestCloseLeavesNothing checks the kernel's view: after Close, no program
// the sampler loaded is still loaded (links and perf events hold programs,
// so none of those survive either).
func TestCloseLeavesNothing(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			requireRoot(t)
			opts := Options{}
			if name == "uprobe" {
				// go test strips the test binary's symbol table, so
				// attach to hintprog's hint function.
				opts = Options{Binary: buildHintprog(t), Symbol: "main.kvtierHintAccess", ABI: ABIGo}
			}
			before, fdsBefore := progIDs(t), kernelFDs(t)
			s, err := Open(name, opts)
			if errors.Is(err, ErrNotSupported) {
				t.Skipf("kernel lacks what sampler %s needs: %v", name, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			during := progIDs(t)
			added := 0
			for id := range during {
				if !before[id] {
					added++
				}
			}
			if added == 0 {
				t.Fatalf("no program appeared while %s was open", name)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left := progsLeft(t, before, during); len(left) > 0 {
				t.Errorf("programs %v still loaded 2s after Close", left)
			}
			if fds := kernelFDs(t); fds != fdsBefore {
				t.Errorf("open BPF and perf descriptors: %d before Open, %d after Close", fdsBefore, fds)
			}
			checkUseAfterClose(t, s, name)
		})
	}
}

// progsLeft returns the programs loaded while the sampler was open (in
// during, not in before) that are still loaded. The kernel frees programs
// after an RCU grace period or from a work queue, so it gives it 2s.
func progsLeft(t *testing.T, before, during map[uint32]bool) []uint32 {
	t.Helper()
	var left []uint32
	for range 100 {
		left = left[:0]
		for id := range progIDs(t) {
			if !before[id] && during[id] {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return left
}

// checkUseAfterClose checks that every call on s, closed, fails with
// ErrClosed naming sampler name.
func checkUseAfterClose(t *testing.T, s Sampler, name string) {
	t.Helper()
	_, drainErr := s.Drain(nil)
	_, statsErr := s.Stats()
	for _, err := range []error{
		s.Watch(Region{ID: 1, PID: 1, Start: 0, End: page, BlockSize: page}), s.Unwatch(1), drainErr, statsErr,
	} {
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "sampler "+name) {
			t.Errorf("use after Close = %v, want ErrClosed naming sampler %s", err, name)
		}
	}
}

// TestPerfWithoutPMU: on a host without PEBS or IBS the perf sampler
// refuses with ErrNoPMU naming what it looked for.
func TestPerfWithoutPMU(t *testing.T) {
	requireRoot(t)
	if _, err := DetectPMU("/sys", "", 30); err == nil {
		t.Skip("this host has a memory-sampling PMU; the no-PMU path is covered by TestDetectPMU")
	}
	s, err := Open("perf", Options{})
	if err == nil {
		s.Close()
		t.Fatal("perf opened without a PMU")
	}
	if !errors.Is(err, ErrNoPMU) || !strings.Contains(err.Error(), "ibs_op") || !strings.Contains(err.Error(), "mem-loads") {
		t.Fatalf("Open(perf) = %v; want ErrNoPMU naming PEBS mem-loads and IBS op", err)
	}
}

// TestDamonHere: this host's DAMON has no vaddr operations (or another
// user's kdamond runs), so damon refuses with a clear error and changes
// nothing.
func TestDamonRefuses(t *testing.T) {
	requireRoot(t)
	before, _ := os.ReadFile("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds")
	s, err := Open("damon", Options{})
	if err == nil {
		s.Close()
		t.Skip("this kernel has DAMON vaddr and no other DAMON user: the end-to-end guest tests damon")
	}
	if !errors.Is(err, ErrNotSupported) && !errors.Is(err, ErrBusy) {
		t.Fatalf("Open(damon) = %v, want ErrNotSupported or ErrBusy", err)
	}
	if errors.Is(err, ErrNotSupported) && !strings.Contains(err.Error(), "vaddr") && !strings.Contains(err.Error(), "damon_aggregated") {
		t.Errorf("error %q names neither vaddr nor the tracepoint", err)
	}
	after, _ := os.ReadFile("/sys/kernel/mm/damon/admin/kdamonds/nr_kdamonds")
	if string(before) != string(after) {
		t.Errorf("nr_kdamonds changed from %q to %q", before, after)
	}
	t.Log(err)
}

// TestDamonProgramLoads loads and attaches damon's BPF program where the
// kernel has the damon_aggregated tracepoint, without starting DAMON: the
// verifier and the CO-RE relocations of struct damon_region are checked
// even where DAMON vaddr is missing.
func TestDamonProgramLoads(t *testing.T) {
	requireRoot(t)
	tid, region, err := damonArgs()
	if errors.Is(err, ErrNotSupported) {
		t.Skipf("kernel lacks the damon_aggregated tracepoint: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := load("damon", kvtierProgOnDamon, Options{}.withDefaults(), map[string]any{
		kvtierVarDamonTidArg: tid, kvtierVarDamonRegionArg: region})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: "damon_aggregated", Program: c.objs.Prog})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	t.Logf("target_id is argument %d, damon_region argument %d", tid, region)
}
