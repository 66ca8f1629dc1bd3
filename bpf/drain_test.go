//go:build linux && (amd64 || arm64)

package bpf

import (
	"os"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// TestMapFull: with room for 8 blocks, touching 16 blocks counts 8 and
// drops 8, and the next epoch has room again.
func TestMapFull(t *testing.T) {
	s := openOrSkip(t, "fault", Options{MaxBlocks: 8})
	b := freshMap(t, 32*page)
	r := Region{ID: 1, PID: uint32(os.Getpid()), Start: addr(b), End: addr(b) + 32*page, BlockSize: page}
	if err := s.Watch(r); err != nil {
		t.Fatal(err)
	}
	pages := make([]int, 16)
	for i := range pages {
		pages[i] = i
	}
	touchPages(b, pages)
	counts, err := s.Drain(nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 8 || st.Drops != 8 || st.Matched != 8 {
		t.Fatalf("counted %d blocks, stats %+v; want 8 counted, 8 dropped", len(counts), st)
	}
	touchPages(b, []int{20, 21})
	counts, err = s.Drain(nil)
	if err != nil || len(counts) != 2 {
		t.Fatalf("after the drain: %+v, %v; want 2 blocks", counts, err)
	}
}

// TestDrainUnderLoad faults every page of a 64 MiB region once while
// draining as fast as possible: the drained accesses must add up to
// exactly the number of pages, so no event was lost across a swap.
func TestDrainUnderLoad(t *testing.T) {
	for _, name := range []string{"fault", "sw-page-faults"} {
		t.Run(name, func(t *testing.T) {
			s := openOrSkip(t, name, Options{})
			const pages = 16384
			b := freshMap(t, pages*page)
			r := Region{ID: 2, PID: uint32(os.Getpid()), Start: addr(b), End: addr(b) + pages*page, BlockSize: page}
			if err := s.Watch(r); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				all := make([]int, pages)
				for i := range all {
					all[i] = i
				}
				touchPages(b, all)
			}()
			var total uint64
			seen := map[uint32]bool{}
			drains := 0
			add := func() {
				counts, err := s.Drain(nil)
				if err != nil {
					t.Fatal(err)
				}
				drains++
				for _, c := range counts {
					if seen[c.Block] {
						t.Errorf("block %d counted in two epochs (one fault per page)", c.Block)
					}
					seen[c.Block] = true
					total += c.Accesses
				}
			}
		loop:
			for {
				select {
				case <-done:
					break loop
				default:
					add()
					time.Sleep(200 * time.Microsecond)
				}
			}
			add()
			st, err := s.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if total != pages || st.Drops != 0 {
				t.Fatalf("drained %d accesses over %d drains (stats %+v), want %d", total, drains, st, pages)
			}
			t.Logf("%d faults drained exactly over %d drains", total, drains)
		})
	}
}

// BenchmarkFaultOverhead faults the pages of a 16 MiB region (dropping
// them with MADV_DONTNEED between rounds) without a sampler and then with
// each sampler attached and the region watched, in the same run, and
// reports ns per fault for both, their ratio and the added ns per sampled
// event.
func BenchmarkFaultOverhead(b *testing.B) {
	const pages = 4096
	for _, name := range []string{"fault", "sw-page-faults"} {
		b.Run(name, func(b *testing.B) {
			requireRoot(b)
			buf := freshMap(b, pages*page)
			all := make([]int, pages)
			for i := range all {
				all[i] = i
			}
			round := func() time.Duration {
				start := time.Now()
				touchPages(buf, all)
				d := time.Since(start)
				if err := unix.Madvise(buf, unix.MADV_DONTNEED); err != nil {
					b.Fatal(err)
				}
				return d
			}
			var base, with time.Duration
			for range b.N {
				base += round()
			}
			s := openOrSkip(b, name, Options{})
			r := Region{ID: 1, PID: uint32(os.Getpid()), Start: addr(buf), End: addr(buf) + pages*page, BlockSize: page}
			if err := s.Watch(r); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				with += round()
				if _, err := s.Drain(nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st, err := s.Stats()
			if err != nil {
				b.Fatal(err)
			}
			n := float64(b.N) * pages
			b.ReportMetric(float64(base.Nanoseconds())/n, "ns/fault-bare")
			b.ReportMetric(float64(with.Nanoseconds())/n, "ns/fault-sampled")
			b.ReportMetric(float64(with)/float64(base), "ratio")
			b.ReportMetric(float64((with-base).Nanoseconds())/float64(max(st.Matched, 1)), "ns/event")
		})
	}
}

// TestStatSums: the batch read of the per-CPU stats array sums every
// entry over the CPUs, as one lookup an entry does.
func TestStatSums(t *testing.T) {
	requireRoot(t)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: nStats})
	if err != nil {
		t.Fatalf("creating a per-CPU array: %v", err)
	}
	defer m.Close()
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	var want [nStats]uint64
	for k := range uint32(nStats) {
		per := make([]uint64, ncpu)
		for c := range per {
			per[c] = uint64(k+1)*1000 + uint64(c)
			want[k] += per[c]
		}
		if err := m.Put(k, per); err != nil {
			t.Fatal(err)
		}
	}
	for name, read := range map[string]func(*ebpf.Map) ([nStats]uint64, error){
		"batch": new(statBuffers).sums, "each": statSumsEach,
	} {
		got, err := read(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s: sums %v, want %v", name, got, want)
		}
	}
}
