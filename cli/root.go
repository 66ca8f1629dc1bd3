package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Build information, set with -ldflags "-X github.com/kvtier/kvtier/cli.version=...".
var (
	version = "dev"
	commit  = "unknown"
)

// Version returns the version and commit the binary was built from.
func Version() (string, string) { return version, commit }

// Exit codes that scripts can rely on, for every command (the README's
// table; exitCode and classify map errors to them).
const (
	ExitOK          = 0 // success
	ExitError       = 1 // the command failed: a missing or bad file or config, a process that is gone, an unhealthy daemon (status)
	ExitUsage       = 2 // bad flags or arguments (including a --sysfs-root or --procfs-root that does not exist)
	ExitUnreachable = 3 // the daemon is not running or its socket is missing
	ExitPermission  = 4 // permission denied (socket, /proc, BPF)
	ExitUnsupported = 5 // the kernel or hardware lacks a needed feature
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that Main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageError marks err as a usage error (exit 2).
func usageError(format string, a ...any) error {
	return withCode(ExitUsage, fmt.Errorf(format, a...))
}

var commands []func() *cobra.Command

// register adds a command constructor to the root command.
func register(f func() *cobra.Command) { commands = append(commands, f) }

// NewRoot builds the whole command tree.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "kvtier",
		Short: "Tier LLM KV-cache blocks between DRAM and CXL memory",
		Long: "kvtier samples accesses to KV-cache regions with eBPF, scores blocks with\n" +
			"pluggable policies and moves them between DRAM and CXL NUMA nodes under\n" +
			"budgets. The same policies run in a trace-driven simulator.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return withCode(ExitUsage, err)
	})
	for _, f := range commands {
		root.AddCommand(f())
	}
	return root
}

// Main runs the command line and returns the process exit code.
func Main(args []string) int {
	return run(args, os.Stdout, os.Stderr)
}

func run(args []string, stdout, stderr io.Writer) int {
	root := NewRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	printError(stderr, cmd, args, err, code)
	return code
}
