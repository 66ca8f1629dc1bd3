package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon"
)

func init() { register(newDaemonCmd) }

type daemonFlags struct {
	config, socket, metrics string
	logLevel                string
	logJSON                 *bool // nil: keep the config's log.json
	check, asJSON           bool
	cpuProfile              string
}

func newDaemonCmd() *cobra.Command {
	var f daemonFlags
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the kvtier daemon (sample, decide, move, serve the API)",
		Long: "Run the kvtier daemon: it samples accesses to registered KV regions with eBPF,\n" +
			"decides placements with the configured policy and moves blocks between DRAM\n" +
			"and CXL under budgets. SIGHUP reloads policy, budgets and rules; SIGTERM stops.\n" +
			"--check validates the config and exits.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.logLevel != "" {
				if err := daemon.CheckLogLevel(f.logLevel); err != nil {
					return usageError("--log-level: %v", err)
				}
			}
			if !cmd.Flags().Changed("log-json") {
				f.logJSON = nil
			}
			if f.check {
				return checkConfig(cmd, f)
			}
			return runDaemon(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", daemon.DefaultConfigPath, "HCL config file")
	fl.StringVar(&f.socket, "socket", "", "API socket path (overrides api.socket)")
	fl.StringVar(&f.metrics, "metrics-addr", "", "Prometheus listen address (overrides metrics.listen)")
	fl.StringVar(&f.logLevel, "log-level", "", "log level: trace, debug, info, warn or error (overrides log.level)")
	f.logJSON = fl.Bool("log-json", false, "log JSON lines, e.g. for journald (overrides log.json; --log-json=false forces text)")
	fl.BoolVar(&f.check, "check", false, "validate the config and exit")
	fl.BoolVar(&f.asJSON, "json", false, "with --check: print the result as JSON")
	fl.StringVar(&f.cpuProfile, "cpu-profile", "", "write a Go CPU profile of the whole run to this file (go tool pprof reads it)")
	return cmd
}

func checkConfig(cmd *cobra.Command, f daemonFlags) error {
	_, err := daemon.LoadConfig(f.config)
	if f.asJSON {
		out := map[string]any{"config": f.config, "valid": err == nil}
		if err != nil {
			out["error"] = err.Error()
		}
		_ = json.NewEncoder(cmd.OutOrStdout()).Encode(out)
	}
	if err != nil {
		// A missing or bad config is a failure (ExitError), not a usage
		// error, with or without --check.
		return withCode(ExitError, err)
	}
	if !f.asJSON {
		fmt.Fprintf(cmd.OutOrStdout(), "%s: config is valid\n", f.config)
	}
	return nil
}

func runDaemon(cmd *cobra.Command, f daemonFlags) error {
	cfg, err := daemon.LoadConfig(f.config)
	if err != nil {
		return withCode(ExitError, err)
	}
	v, _ := Version()
	d, err := daemon.New(cfg, daemon.Options{Socket: f.socket, MetricsAddr: f.metrics,
		LogLevel: f.logLevel, LogJSON: f.logJSON,
		LogOutput: cmd.ErrOrStderr(), Version: v, Notifier: daemon.NewNotifier()})
	if err != nil {
		// kernel_tiering = "refuse" with the kernel's tiering on is
		// ExitUnsupported; see classify for the rest.
		return withCode(classify(err), err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go reloadOnHUP(ctx, d, f.config, hup)
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return withCode(ExitError, err)
	}
	return errors.Join(d.Run(ctx), stopProfile())
}

// startCPUProfile starts a Go CPU profile written to path ("" : none) and
// returns the function that stops it and closes the file.
func startCPUProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpu-profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpu-profile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpu-profile %s: %w", path, err)
		}
		return nil
	}, nil
}

// reloadOnHUP reloads the config on each SIGHUP; a bad config is logged by
// the daemon and the old one kept.
func reloadOnHUP(ctx context.Context, d *daemon.Daemon, path string, hup <-chan os.Signal) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			d.ReloadFile(path)
		}
	}
}
