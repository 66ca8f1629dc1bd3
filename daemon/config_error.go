package daemon

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// ConfigError lists every problem found in a config, each with its position.
type ConfigError struct {
	Diags hcl.Diagnostics
}

// Error formats each problem as "file:line:col: summary: detail", one a
// line.
func (e *ConfigError) Error() string {
	lines := make([]string, 0, len(e.Diags))
	for _, d := range e.Diags {
		lines = append(lines, formatDiag(d))
	}
	return strings.Join(lines, "\n")
}

func formatDiag(d *hcl.Diagnostic) string {
	msg := d.Summary
	if d.Detail != "" {
		msg += ": " + d.Detail
	}
	if d.Subject == nil {
		return "config: " + msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, msg)
}
