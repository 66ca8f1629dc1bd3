package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() { register(newManCmd) }

// newManCmd is a hidden command that writes one man page per command
// (kvtier.1, kvtier-daemon.1, ...) from the command tree; the Debian
// package installs them. It is hidden, so it gets no page of its own.
func newManCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of every command into DIR",
		Hidden: true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("man needs one directory")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			date, err := manDate()
			if err != nil {
				return usageError("%v", err)
			}
			return writeManPages(cmd.Root(), args[0], date)
		},
	}
	return cmd
}

// manDate is SOURCE_DATE_EPOCH when it is set (reproducible builds), else now.
func manDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC(), nil
	}
	secs, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
	}
	return time.Unix(secs, 0).UTC(), nil
}

// writeManPages writes section-1 pages for root and its visible
// subcommands into dir, without cobra's "auto generated" history line.
func writeManPages(root *cobra.Command, dir string, date time.Time) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	disableAutoGenTag(root)
	header := &doc.GenManHeader{Title: "KVTIER", Section: "1", Date: &date,
		Source: "kvtier " + version, Manual: "kvtier manual"}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return fmt.Errorf("man pages in %s: %w", dir, err)
	}
	return nil
}

func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}
