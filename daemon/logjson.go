package daemon

import (
	"time"

	"github.com/hashicorp/go-hclog"
)

// durationLogger wraps a JSON logger so that time.Duration values are
// written as strings ("1.5s"), as the text format writes them, instead of
// hclog's JSON encoding of a Duration: an integer of nanoseconds.
type durationLogger struct {
	hclog.Logger
}

// stringDurations returns args with every time.Duration replaced by its
// String(); args itself is left as it was.
func stringDurations(args []any) []any {
	var out []any
	for i, a := range args {
		d, ok := a.(time.Duration)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = d.String()
	}
	if out == nil {
		return args
	}
	return out
}

// Log implements hclog.Logger.
func (l durationLogger) Log(level hclog.Level, msg string, args ...any) {
	l.Logger.Log(level, msg, stringDurations(args)...)
}

// Trace implements hclog.Logger.
func (l durationLogger) Trace(msg string, args ...any) { l.Logger.Trace(msg, stringDurations(args)...) }

// Debug implements hclog.Logger.
func (l durationLogger) Debug(msg string, args ...any) { l.Logger.Debug(msg, stringDurations(args)...) }

// Info implements hclog.Logger.
func (l durationLogger) Info(msg string, args ...any) { l.Logger.Info(msg, stringDurations(args)...) }

// Warn implements hclog.Logger.
func (l durationLogger) Warn(msg string, args ...any) { l.Logger.Warn(msg, stringDurations(args)...) }

// Error implements hclog.Logger.
func (l durationLogger) Error(msg string, args ...any) { l.Logger.Error(msg, stringDurations(args)...) }

// With implements hclog.Logger; the new logger converts durations too.
func (l durationLogger) With(args ...any) hclog.Logger {
	return durationLogger{l.Logger.With(stringDurations(args)...)}
}

// Named implements hclog.Logger.
func (l durationLogger) Named(name string) hclog.Logger { return durationLogger{l.Logger.Named(name)} }

// ResetNamed implements hclog.Logger.
func (l durationLogger) ResetNamed(name string) hclog.Logger {
	return durationLogger{l.Logger.ResetNamed(name)}
}
