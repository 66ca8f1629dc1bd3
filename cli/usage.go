package cli

import "strings"

// isUsage reports whether err is one of cobra's own argument errors.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand",
		"accepts ", "requires at least", "requires at most", "invalid argument", "required flag(s)"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
