package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/numa"
)

// The fault workload: a buffer of faultBlocks blocks of faultBlockSize
// bytes, 2 MiB aligned and without huge pages, of which only the blocks in
// faultTargets are touched, one new page of each every faultPace.
const (
	faultWorkload  = "faults"
	faultBlockSize = 2 << 20
	faultBlocks    = 8 // 16 MiB: as large as sample's default --min-size
	faultPace      = 10 * time.Millisecond
)

var faultTargets = []uint32{2, 5}

// runFaultWorkload is the child of startFaultWorkload. Each page of a
// target block faults once, at its first touch; the targets are touched in
// turn, so at any time their fault counts differ by at most one. The 512
// pages of a block last about 5 s, longer than any sample the tests take.
func runFaultWorkload() {
	raw := make([]byte, (faultBlocks+1)*faultBlockSize) // fresh memory: no page is present yet
	off := (faultBlockSize - int(uintptr(unsafe.Pointer(&raw[0]))%faultBlockSize)) % faultBlockSize
	buf := raw[off : off+faultBlocks*faultBlockSize]
	addr := uintptr(unsafe.Pointer(&buf[0]))
	if err := numa.Madvise(addr, uint64(len(buf)), numa.AdviseNoHugePage); err != nil {
		fmt.Fprintln(os.Stderr, "fault workload:", err)
		os.Exit(1)
	}
	fmt.Printf("%d %d\n", addr, len(buf))
	for p := 0; p < faultBlockSize/numa.PageSize; p++ {
		for _, b := range faultTargets {
			buf[int(b)*faultBlockSize+p*numa.PageSize] = 1
		}
		time.Sleep(faultPace)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// requireRoot skips a test that loads BPF samplers when not run as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kvtier sample loads BPF programs, which needs root")
	}
}

// sampleJSON runs `kvtier sample --json` with args and decodes the report,
// skipping only when the kernel lacks the sampler (exit 5).
func sampleJSON(t *testing.T, args ...string) sampleReport {
	t.Helper()
	code, out, errs := runCLI(append([]string{"sample", "--json"}, args...)...)
	if code == ExitUnsupported {
		t.Skipf("the kernel lacks what this sampler needs: %s", errs)
	}
	if code != ExitOK {
		t.Fatalf("sample %v: exit %d: %s", args, code, errs)
	}
	var rep sampleReport
	decodeStrict(t, out, &rep, "sampler", "pid", "seconds", "regions.id", "regions.pid", "regions.start",
		"regions.end", "regions.block_size", "counts.region", "counts.block", "counts.addr", "counts.accesses",
		"counts.reads", "counts.writes", "counts.last_seen_ns", "stats.events", "stats.matched", "stats.outside",
		"stats.drops", "stats.drains")
	return rep
}

// checkFaultCounts checks the counts of the region that is exactly the
// fault workload's buffer: its target blocks and nothing else, every fault
// of the pages touched in turn counted (the two targets within one).
func checkFaultCounts(t *testing.T, rep sampleReport, wl *workload, writes bool) {
	t.Helper()
	var id uint32
	for _, r := range rep.Regions {
		if r.Start == wl.addr && r.End == wl.addr+wl.size && r.BlockSize == faultBlockSize && r.PID == uint32(wl.pid()) {
			id = r.ID
		}
	}
	if id == 0 {
		t.Fatalf("no region is the buffer %#x+%d in %+v", wl.addr, wl.size, rep.Regions)
	}
	got := map[uint32]uint64{}
	for _, c := range rep.Counts {
		if c.Region != id {
			continue
		}
		got[c.Block] = c.Accesses
		if want := wl.addr + uint64(c.Block)*faultBlockSize; c.Addr != want {
			t.Errorf("block %d at %#x, want %#x", c.Block, c.Addr, want)
		}
		if writes && (c.Writes != c.Accesses || c.Reads != 0) {
			t.Errorf("block %d: %d accesses, %d reads, %d writes; every fault was a write", c.Block, c.Accesses, c.Reads, c.Writes)
		}
	}
	a, b := got[faultTargets[0]], got[faultTargets[1]]
	// One page of each target every faultPace: a second sees ~100, a
	// loaded host fewer, but never none.
	if len(got) != 2 || a < 5 || b < 5 || max(a, b)-min(a, b) > 1 {
		t.Errorf("counts of the buffer %v; want blocks %v only, at least 5 faults each, within one of each other",
			got, faultTargets)
	}
	if rep.Stats.Drops != 0 || rep.Stats.Matched < a+b || rep.Stats.Drains < 2 {
		t.Errorf("stats %+v: want no drops, >= %d matched, >= 2 drains", rep.Stats, a+b)
	}
}

// TestSampleCountsTouchedBlocks attaches each page-fault sampler to a
// child that touches known blocks of its buffer and checks that the counts
// name exactly those blocks, with the buffer found among the child's large
// anonymous mappings or given with --range.
func TestSampleCountsTouchedBlocks(t *testing.T) {
	requireRoot(t)
	for _, tc := range []struct {
		sampler string
		writes  bool // the sampler tells writes from reads
		byRange bool
	}{
		{"fault", true, false},
		{"sw-page-faults", false, true},
	} {
		t.Run(tc.sampler, func(t *testing.T) {
			t.Parallel()
			wl := spawnWorkload(t, faultWorkload)
			args := []string{"--sampler", tc.sampler, "--pid", fmt.Sprint(wl.pid()), "--duration", "1s",
				"--block-size", fmt.Sprint(faultBlockSize)}
			if tc.byRange {
				args = append(args, "--range", fmt.Sprintf("%x-%x", wl.addr, wl.addr+wl.size))
			}
			rep := sampleJSON(t, args...)
			if rep.Sampler != tc.sampler || rep.PID != wl.pid() || rep.Seconds < 1 || rep.Seconds > 30 {
				t.Errorf("report header %s pid %d %.2fs, want %s pid %d about 1s", rep.Sampler, rep.PID, rep.Seconds,
					tc.sampler, wl.pid())
			}
			if tc.byRange && len(rep.Regions) != 1 {
				t.Errorf("--range gave regions %+v, want the one range", rep.Regions)
			}
			checkFaultCounts(t, rep, wl, tc.writes)
		})
	}
}

// TestSampleText checks the text report: the header line, the region and
// one row per counted block with its address.
func TestSampleText(t *testing.T) {
	requireRoot(t)
	wl := spawnWorkload(t, faultWorkload)
	code, out, errs := runCLI("sample", "--sampler", "fault", "--pid", fmt.Sprint(wl.pid()), "--duration", "500ms",
		"--range", fmt.Sprintf("0x%x-0x%x", wl.addr, wl.addr+wl.size), "--block-size", fmt.Sprint(faultBlockSize))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	fields := func(i int) string { return strings.Join(strings.Fields(lines[i]), " ") }
	header := fmt.Sprintf("sampler fault, pid %d, ", wl.pid())
	region := fmt.Sprintf("1 %#x-%#x %d", wl.addr, wl.addr+wl.size, faultBlockSize)
	if len(lines) != 7 || !strings.HasPrefix(lines[0], header) || !strings.HasSuffix(lines[0], " 0 dropped") ||
		fields(1) != "REGION RANGE BLOCK SIZE" || fields(2) != region || lines[3] != "" ||
		fields(4) != "REGION BLOCK ADDRESS ACCESSES READS WRITES" {
		t.Fatalf("sample output, want a header, region %q and two blocks:\n%s", region, out)
	}
	for i, b := range faultTargets {
		// Every fault is a write: accesses = writes, no reads.
		var n, writes uint64
		row := fmt.Sprintf("1 %d %#x %%d 0 %%d", b, wl.addr+uint64(b)*faultBlockSize)
		if _, err := fmt.Sscanf(fields(5+i), row, &n, &writes); err != nil || n == 0 || writes != n {
			t.Errorf("row %q, want %q with equal non-zero accesses and writes: %v", lines[5+i], row, err)
		}
	}
}

// TestSamplePerfWithoutPMU checks that the hardware sampler, on a host
// without PEBS or IBS, exits 5 naming what it looked for.
func TestSamplePerfWithoutPMU(t *testing.T) {
	requireRoot(t)
	if _, err := os.Stat("/sys/bus/event_source/devices/ibs_op"); err == nil {
		t.Skip("this host has AMD IBS: the no-PMU exit is not reachable")
	}
	if _, err := os.Stat("/sys/bus/event_source/devices/cpu/events/mem-loads"); err == nil {
		t.Skip("this host has Intel PEBS mem-loads: the no-PMU exit is not reachable")
	}
	code, out, errs := runCLI("sample", "--sampler", "perf", "--pid", fmt.Sprint(os.Getpid()),
		"--range", "1000-2000", "--duration", "100ms")
	if code != ExitUnsupported || out != "" || !strings.Contains(errs, "no memory-sampling PMU") ||
		!strings.Contains(errs, "mem-loads") || !strings.Contains(errs, "ibs_op") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 5 naming the PMU files looked for", code, out, errs)
	}
}

// TestSampleUsageErrors checks that bad flags exit 2 naming the flag or
// value, before any BPF program is loaded.
func TestSampleUsageErrors(t *testing.T) {
	self := fmt.Sprint(os.Getpid())
	tests := []struct {
		args []string
		want string
	}{
		{nil, "--pid is required and must be a positive process ID, got 0"},
		{[]string{"--pid", "-3"}, "got -3"},
		{[]string{"--pid", "x"}, `invalid argument "x" for "--pid"`},
		{[]string{"--pid", self, "--duration", "0s"}, "--duration must be positive, got 0s"},
		{[]string{"--pid", self, "--duration", "soon"}, `invalid argument "soon" for "--duration"`},
		{[]string{"--pid", self, "--block-size", "0"}, "--block-size must be positive"},
		{[]string{"--pid", self, "--range", "zz"}, `--range "zz": want START-END in hex`},
		{[]string{"--pid", self, "--range", "2000-1000"}, "end 0x1000 is not above start 0x2000"},
		{[]string{"--pid", self, "--range", "1000-zz"}, `end "zz" is not a hex address`},
		{[]string{"--pid", self, "--sampler", "nope"}, `--sampler "nope": want one of `},
		{[]string{"--pid", self, "--range", "1000-2000", "--sampler", "uprobe", "--abi", "rust"}, `hint ABI "rust"`},
		{[]string{"--pid", self, "--bogus"}, "unknown flag: --bogus"},
		{[]string{"extra", "--pid", self}, "unknown command"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(append([]string{"sample"}, tt.args...)...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("sample %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	// What the process is or has is no usage error: exit 1 (as placement).
	gone := startGonePID(t)
	for args, want := range map[string]string{
		"--pid " + gone: "pid " + gone + ": process is gone",
		"--pid " + self + " --min-size 1099511627776": "has no anonymous mapping of at least 1099511627776 bytes",
	} {
		code, _, stderr := runCLI(append([]string{"sample"}, strings.Fields(args)...)...)
		if code != ExitError || !strings.Contains(stderr, want) {
			t.Errorf("sample %s: exit %d, stderr %q; want exit 1 and %q", args, code, stderr, want)
		}
	}
}

// startGonePID returns the PID of a child that has exited and been reaped.
func startGonePID(t *testing.T) string {
	t.Helper()
	wl := startWorkload(t)
	pid := wl.pid()
	if err := wl.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = wl.cmd.Wait()
	return fmt.Sprint(pid)
}

// TestSampleHint: a fault sampler that counted nothing says why; a
// steady-state sampler, or one that counted, says nothing more.
func TestSampleHint(t *testing.T) {
	tests := []struct {
		sampler string
		matched uint64
		want    string
	}{
		{"fault", 0, "nothing counted: fault sees only page faults: first touches"},
		{"sw-page-faults", 0, "Try --sampler damon or perf"},
		{"fault", 3, ""},
		{"damon", 0, ""},
	}
	for _, tt := range tests {
		rep := &sampleReport{Sampler: tt.sampler, Stats: bpf.Stats{Matched: tt.matched}}
		got := sampleHint(rep)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s with %d counted: hint %q, want %q", tt.sampler, tt.matched, got, tt.want)
		}
	}
}

// TestSampleHeaderPlural: the header says "1 event", not "1 events".
func TestSampleHeaderPlural(t *testing.T) {
	for n, want := range map[uint64]string{0: ": 0 events, ", 1: ": 1 event, ", 2: ": 2 events, "} {
		var b strings.Builder
		if err := writeSample(&b, &sampleReport{Sampler: "damon", PID: 1, Stats: bpf.Stats{Events: n}}, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%d events: header %q lacks %q", n, strings.SplitN(b.String(), "\n", 2)[0], want)
		}
	}
}
