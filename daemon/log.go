package daemon

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// NewLogger returns the daemon's root logger named "kvtier", writing text
// or JSON (for journald) at the configured level. In JSON, durations are
// strings such as "1.5s", as in text (see durationLogger).
func NewLogger(cfg LogConfig, w io.Writer) hclog.Logger {
	l := hclog.New(&hclog.LoggerOptions{
		Name:            "kvtier",
		Level:           levelOf(cfg.Level),
		JSONFormat:      cfg.JSON,
		Output:          w,
		IncludeLocation: false,
		TimeFormat:      "2006-01-02T15:04:05.000Z07:00",
	})
	if cfg.JSON {
		return durationLogger{l}
	}
	return l
}

// LogLevels are the levels log.level and --log-level accept.
var LogLevels = []string{"trace", "debug", "info", "warn", "error"}

// CheckLogLevel returns an error unless s is one of LogLevels.
func CheckLogLevel(s string) error {
	if slices.Contains(LogLevels, s) {
		return nil
	}
	return fmt.Errorf("log level %q: want one of %s", s, strings.Join(LogLevels, ", "))
}

func levelOf(s string) hclog.Level {
	if l := hclog.LevelFromString(s); l != hclog.NoLevel {
		return l
	}
	return hclog.Info
}
