package testutil

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"
	"unsafe"
)

// WorkloadEnv names the environment variable that makes a test binary a
// workload child; its value is the mode.
const WorkloadEnv = "KVTIER_TEST_WORKLOAD"

// Modes of the workload child that RunWorkload runs.
const (
	// Touched faults the buffer in before printing its address.
	Touched = "touched"
	// Lazy prints the address of a buffer it has not touched, and first
	// touches it after a line on stdin (Workload.FirstTouch): one page
	// fault per page, after the test has set up what watches them.
	Lazy = "lazy"
)

// WorkloadBytes is the size of the workload child's buffer.
const WorkloadBytes = 8 << 20

// Main is a test binary's TestMain: it runs m's tests, or the child this
// process was started as by the mode in WorkloadEnv: one of children, else
// RunWorkload. After the tests it removes the binary Binary built, and
// exits with m's code.
func Main(m *testing.M, children map[string]func()) {
	if mode := os.Getenv(WorkloadEnv); mode != "" {
		if child, ok := children[mode]; ok {
			child()
			os.Exit(0)
		}
		RunWorkload(mode)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// AlignedBuffer returns a page-aligned buffer of n bytes, untouched.
func AlignedBuffer(n int) []byte {
	page := os.Getpagesize()
	raw := make([]byte, n+page)
	off := (page - int(Addr(raw)%uintptr(page))) % page
	return raw[off : off+n]
}

// Addr is the address of buf's first byte.
func Addr(buf []byte) uintptr { return uintptr(unsafe.Pointer(&buf[0])) }

// Touch writes one byte of every page of buf.
func Touch(buf []byte) {
	for i := 0; i < len(buf); i += os.Getpagesize() {
		buf[i]++
	}
}

// RunWorkload is the workload child: it allocates a page-aligned buffer of
// WorkloadBytes, prints "ADDR LEN" on a line and touches every page of the
// buffer every 20ms until killed. It never returns.
func RunWorkload(mode string) {
	if mode != Touched && mode != Lazy {
		fmt.Fprintf(os.Stderr, "%s=%q: want %s or %s\n", WorkloadEnv, mode, Touched, Lazy)
		os.Exit(2)
	}
	buf := AlignedBuffer(WorkloadBytes)
	if mode == Touched {
		Touch(buf)
	}
	fmt.Printf("%d %d\n", Addr(buf), len(buf))
	if mode == Lazy {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	}
	for {
		Touch(buf)
		time.Sleep(20 * time.Millisecond)
	}
}

// Workload is a running workload child.
type Workload struct {
	Cmd   *exec.Cmd
	Addr  uint64 // first byte of its buffer
	Size  uint64 // length of its buffer
	stdin io.WriteCloser
}

// WorkloadCmd is the command that runs the test binary at path (os.Args[0]
// for this one) as a workload child in mode, running no test. Callers may
// change it (credentials, say) before StartWorkload.
func WorkloadCmd(path, mode string) *exec.Cmd {
	cmd := exec.Command(path, "-test.run=^$")
	cmd.Env = append(os.Environ(), WorkloadEnv+"="+mode)
	return cmd
}

// StartWorkload starts cmd, a WorkloadCmd, and reads its buffer's address
// and length. The child is killed when t ends.
func StartWorkload(t testing.TB, cmd *exec.Cmd) *Workload {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &Workload{Cmd: cmd, stdin: in}
	t.Cleanup(w.Kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the workload's buffer address: %v", err)
	}
	if _, err := fmt.Sscan(line, &w.Addr, &w.Size); err != nil {
		t.Fatalf("workload printed %q: %v", line, err)
	}
	return w
}

// PID is the child's process ID.
func (w *Workload) PID() int { return w.Cmd.Process.Pid }

// FirstTouch tells a Lazy child to start touching its buffer.
func (w *Workload) FirstTouch(t testing.TB) {
	t.Helper()
	if _, err := io.WriteString(w.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
}

// Kill kills the child and waits for it, unless it was waited for.
func (w *Workload) Kill() {
	if w.Cmd.ProcessState == nil {
		_ = w.Cmd.Process.Kill()
		_ = w.Cmd.Wait()
	}
}
