//go:build linux && (amd64 || arm64)

package bpf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildHintprog builds internal/hintprog once per test binary run.
func buildHintprog(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hintprog")
	out, err := exec.Command("go", "build", "-o", bin, "./internal/hintprog").CombinedOutput()
	if err != nil {
		t.Fatalf("building hintprog: %v\n%s", err, out)
	}
	return bin
}

// hintRun is a started hintprog waiting for its go-ahead.
type hintRun struct {
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	out        *bufio.Reader
	base, out2 uint64
}

func startHintprog(t *testing.T, bin string, args ...string) *hintRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	h := &hintRun{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	line, err := h.out.ReadString('\n')
	if err != nil {
		t.Fatalf("hintprog: %v", err)
	}
	if _, err := fmt.Sscanf(line, "ready %d %d", &h.base, &h.out2); err != nil {
		t.Fatalf("hintprog said %q: %v", line, err)
	}
	return h
}

// run lets the hints go and waits until they are done.
func (h *hintRun) run(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(h.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	line, err := h.out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "done") {
		t.Fatalf("hintprog: %q, %v", line, err)
	}
}

// TestUprobeHints runs hintprog, which hints blocks 0, 3 (twice) and 9-10
// (one hint spanning two blocks) and one address outside the region, with
// both calling conventions.
func TestUprobeHints(t *testing.T) {
	requireRoot(t)
	bin := buildHintprog(t)
	const block = 4096
	for _, tc := range []struct {
		abi    ABI
		symbol string
	}{
		{ABIGo, "main.kvtierHintAccess"},
		{ABIC, "main.kvtierHintAccessC.abi0"},
	} {
		t.Run(string(tc.abi), func(t *testing.T) {
			h := startHintprog(t, bin, "-abi", string(tc.abi), "-hints", "0:8,3:1,3:4096,9:8192")
			s := openOrSkip(t, "uprobe", Options{ABI: tc.abi, Symbol: tc.symbol})
			r := Region{ID: 3, PID: uint32(h.cmd.Process.Pid), Start: h.base, End: h.base + 64*block, BlockSize: block}
			if err := s.Watch(r); err != nil {
				t.Fatal(err)
			}
			h.run(t)
			counts, err := s.Drain(nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[uint32]uint64{}
			for _, c := range counts {
				if c.Region != 3 {
					t.Errorf("count %+v names region %d", c, c.Region)
				}
				if c.Events != c.Accesses { // one call counts a block once
					t.Errorf("count %+v: events %d, want one per hint call, %d", c, c.Events, c.Accesses)
				}
				got[c.Block] = c.Accesses
			}
			want := map[uint32]uint64{0: 1, 3: 2, 9: 1, 10: 1}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("drained %v, want %v", got, want)
			}
			st, err := s.Stats()
			if err != nil {
				t.Fatal(err)
			}
			if st.Events != 5 || st.Outside != 1 {
				t.Errorf("stats %+v: want 5 events, 1 outside", st)
			}
			if err := s.Unwatch(3); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestUprobeMissingSymbol(t *testing.T) {
	requireRoot(t)
	s := openOrSkip(t, "uprobe", Options{Symbol: "no_such_hint_symbol"})
	err := s.Watch(Region{ID: 1, PID: uint32(os.Getpid()), Start: 4096, End: 8192, BlockSize: 4096})
	if !errors.Is(err, ErrNoSymbol) {
		t.Fatalf("Watch = %v, want ErrNoSymbol", err)
	}
	// The failed Watch left nothing behind: the region can be retried.
	if err := s.Unwatch(1); !errors.Is(err, ErrNoRegion) {
		t.Fatalf("Unwatch after failed Watch = %v, want ErrNoRegion", err)
	}
}
