package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
)

// JSONError is what a command run with --json prints on stderr when it
// fails, instead of the "kvtier: ..." line.
type JSONError struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}

// wantsJSON reports whether the failed command was run with --json. When
// the flags could not be parsed the arguments are searched instead.
func wantsJSON(cmd *cobra.Command, args []string) bool {
	if cmd != nil {
		if f := cmd.Flags().Lookup("json"); f != nil && f.Changed {
			return f.Value.String() == "true"
		}
	}
	return slices.Contains(args, "--json") || slices.Contains(args, "--json=true")
}

// printError prints a command's error on stderr: a JSONError line under
// --json, else "kvtier: ERROR".
func printError(stderr io.Writer, cmd *cobra.Command, args []string, err error, code int) {
	if wantsJSON(cmd, args) {
		enc := json.NewEncoder(stderr)
		enc.SetEscapeHTML(false)
		if enc.Encode(JSONError{Error: err.Error(), ExitCode: code}) == nil {
			return
		}
	}
	fmt.Fprintln(stderr, "kvtier:", err)
}
