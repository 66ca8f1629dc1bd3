package cli

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTopTerminal runs the built binary on a pseudo-terminal (script(1)
// allocates it) and quits it with q, with Ctrl-C and with SIGTERM.
func TestTopTerminal(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) from util-linux is needed to give top a terminal")
	}
	bin := kvtierBinary(t)
	td := startDaemon(t)
	tests := []struct {
		name string
		quit func(in io.Writer, cmd *exec.Cmd) error
	}{
		{"q", func(in io.Writer, _ *exec.Cmd) error { _, err := in.Write([]byte("q")); return err }},
		{"ctrl-c", func(in io.Writer, _ *exec.Cmd) error { _, err := in.Write([]byte{3}); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkTopQuit(t, script, bin, td.socket, tt.name, tt.quit) })
	}
	t.Run("sigterm without a terminal", func(t *testing.T) { checkTopSIGTERM(t, bin, td.socket) })
}

// checkTopQuit runs top on a pseudo-terminal that script, the path of
// script(1), gives it, quits it after a few frames with quit (named name),
// and checks that it drew frames, exited with 0 and restored the cursor.
func checkTopQuit(t *testing.T, script, bin, socket, name string, quit func(io.Writer, *exec.Cmd) error) {
	cmd := exec.Command(script, "-qfec", bin+" top --interval 150ms --socket "+socket, "/dev/null")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.Sleep(700 * time.Millisecond) // a few frames
	if err := quit(in, cmd); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("top exited with %v:\n%q", err, out.String())
		}
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		t.Fatalf("top did not quit on %s:\n%q", name, out.String())
	}
	s := out.String()
	if strings.Count(s, "\x1b[H\x1b[2J") < 2 || !strings.Contains(s, "kvtier top") ||
		!strings.Contains(s, "REGION") && !strings.Contains(s, "no regions") {
		t.Errorf("top drew no frames on the terminal:\n%q", s)
	}
	if !strings.HasSuffix(strings.TrimRight(s, "\r\n"), "\x1b[?25h") {
		t.Errorf("top did not restore the cursor on exit:\n%q", s)
	}
}

// checkTopSIGTERM runs top with its output to a pipe, which must be plain
// frames, and checks that SIGTERM ends it cleanly.
func checkTopSIGTERM(t *testing.T, bin, socket string) {
	cmd := exec.Command(bin, "top", "--interval", "150ms", "--socket", socket)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("top on SIGTERM: %v", err)
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "epoch=") {
		t.Errorf("plain output expected when stdout is a pipe:\n%q", out.String())
	}
}
