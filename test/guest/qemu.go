package guest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// ErrTimeout is returned when a guest does not power off within its limit.
var ErrTimeout = errors.New("guest timed out")

// Machine is one guest boot: a kernel, an initramfs and a topology.
type Machine struct {
	QEMU     string // default qemu-system-x86_64
	Kernel   string // vmlinuz
	Initrd   string // gzip-compressed newc cpio
	Topology *Topology
	// Cmdline is appended to the kernel command line.
	Cmdline string
	// Timeout is the hard limit of the boot (default 5 minutes).
	Timeout time.Duration
	// Log, when set, also receives the console as it is produced.
	Log io.Writer
}

// Boot is what one run of a Machine produced.
type Boot struct {
	Console []byte
	Wall    time.Duration
	Args    []string
	// Results are nil when the console held none; ResultsErr says why.
	Results    *Results
	ResultsErr error
}

// Args returns the QEMU command line (without the program name).
func (m *Machine) Args() []string {
	args := []string{"-accel", "tcg", "-cpu", "max", "-nodefaults", "-no-reboot",
		"-display", "none", "-serial", "stdio", "-monitor", "none"}
	args = append(args, m.Topology.QEMUArgs()...)
	cmdline := "console=ttyS0 panic=-1 oops=panic loglevel=4 rdinit=/init"
	if m.Cmdline != "" {
		cmdline += " " + m.Cmdline
	}
	return append(args, "-kernel", m.Kernel, "-initrd", m.Initrd, "-append", cmdline)
}

// Run boots the guest and waits until it powers off, the time limit passes
// or ctx ends. The console is returned in every case; an error means QEMU
// failed or timed out, not that a step inside the guest failed (see
// Boot.Results).
func (m *Machine) Run(ctx context.Context) (*Boot, error) {
	qemu := m.QEMU
	if qemu == "" {
		qemu = "qemu-system-x86_64"
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b := &Boot{Args: m.Args()}
	var console bytes.Buffer
	var out io.Writer = &console
	if m.Log != nil {
		out = io.MultiWriter(&console, m.Log)
	}
	cmd := exec.CommandContext(ctx, qemu, b.Args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	b.Wall = time.Since(start)
	b.Console = console.Bytes()
	b.Results, b.ResultsErr = ParseResults(b.Console)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return b, fmt.Errorf("%s after %s (limit %s): %w", m.describe(), b.Wall.Round(time.Second), timeout, ErrTimeout)
	case ctx.Err() != nil:
		return b, fmt.Errorf("%s: %w", m.describe(), ctx.Err())
	case err != nil:
		return b, fmt.Errorf("%s: qemu: %w", m.describe(), err)
	}
	return b, nil
}

func (m *Machine) describe() string {
	k := m.Kernel
	if i := strings.LastIndex(k, "/"); i >= 0 {
		k = k[i+1:]
	}
	return fmt.Sprintf("guest %s on %s", m.Topology.Name, k)
}
