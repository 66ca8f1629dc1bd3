package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon/api"
)

func init() { register(newEventsCmd) }

// eventTypes are the event types the daemon sends, for --type.
var eventTypes = []string{api.EventMigration, api.EventMigrationError, api.EventRegret, api.EventCrossTenantEvict,
	api.EventRegionRegistered, api.EventRegionUnregistered, api.EventRegionDropped, api.EventConfigReloaded,
	api.EventNodeFull}

func newEventsCmd() *cobra.Command {
	var (
		f     clientFlags
		types []string
		count int
	)
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Follow the daemon's event stream (migrations, regret, cross-tenant evictions)",
		Long: "Follow the daemon's event stream until Ctrl-C: migrations, migration errors,\n" +
			"regret events (a demoted block accessed again within the regret horizon),\n" +
			"cross-tenant evictions, regions registered and dropped, config reloads, nodes\n" +
			"found full.\n" +
			"--json prints the stream as newline-delimited JSON, one event a line.\n" +
			"Event types: " + strings.Join(eventTypes, ", "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			want, err := eventFilter(types)
			if err != nil {
				return err
			}
			if count < 0 {
				return usageError("--count %d: want 0 (follow forever) or more", count)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return followEvents(ctx, &f, cmd.OutOrStdout(), want, count)
		},
	}
	f.add(cmd)
	cmd.Flags().StringSliceVar(&types, "type", nil, "only events of these types (repeatable, comma-separated)")
	cmd.Flags().IntVar(&count, "count", 0, "exit after this many events (0: follow until interrupted)")
	_ = cmd.RegisterFlagCompletionFunc("type", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return eventTypes, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// eventFilter checks --type values; nil means every type.
func eventFilter(types []string) (map[string]bool, error) {
	if len(types) == 0 {
		return nil, nil
	}
	known := map[string]bool{}
	for _, t := range eventTypes {
		known[t] = true
	}
	want := map[string]bool{}
	for _, t := range types {
		if !known[t] {
			return nil, usageError("--type %q: unknown event type; want one of %s", t, strings.Join(eventTypes, ", "))
		}
		want[t] = true
	}
	return want, nil
}

// errEnough ends the stream after --count events.
var errEnough = errors.New("enough events")

// followEvents prints events until ctx is done, the daemon closes the
// stream, or count events (0: no limit) were printed.
func followEvents(ctx context.Context, f *clientFlags, w io.Writer, want map[string]bool, count int) error {
	c := f.client()
	defer c.Close()
	enc := json.NewEncoder(w)
	n := 0
	err := c.Events(ctx, func(ev api.Event) error {
		if want != nil && !want[ev.Type] {
			return nil
		}
		var err error
		if f.asJSON {
			err = enc.Encode(ev)
		} else {
			_, err = fmt.Fprintln(w, eventLine(ev))
		}
		if err != nil {
			return err
		}
		n++
		if count > 0 && n >= count {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) || ctx.Err() != nil {
		return nil
	}
	return daemonError(c.Socket(), err)
}

// eventLine is one event as text: time, type, then the fields it has.
func eventLine(ev api.Event) string {
	parts := []string{ev.Time.Local().Format("15:04:05.000"), fmt.Sprintf("%-21s", ev.Type)}
	add := func(k, v string) { parts = append(parts, k+"="+v) }
	if ev.Region != 0 {
		add("region", fmt.Sprint(ev.Region))
	}
	if ev.PID != 0 {
		add("pid", fmt.Sprint(ev.PID))
	}
	if ev.Tenant != "" {
		add("tenant", ev.Tenant)
	}
	if ev.By != "" {
		add("by", ev.By)
	}
	if ev.Direction != "" {
		add("direction", ev.Direction)
	}
	if ev.Block != nil {
		add("block", fmt.Sprint(*ev.Block))
	}
	if ev.Node != nil {
		add("node", fmt.Sprint(*ev.Node))
	}
	if ev.Blocks != 0 {
		add("blocks", fmt.Sprint(ev.Blocks))
	}
	if ev.Pages != 0 {
		add("pages", fmt.Sprint(ev.Pages))
	}
	if ev.Bytes != 0 {
		add("bytes", fmt.Sprint(ev.Bytes))
	}
	if ev.Reason != "" {
		add("reason", fmt.Sprintf("%q", ev.Reason))
	}
	return strings.Join(parts, " ")
}
