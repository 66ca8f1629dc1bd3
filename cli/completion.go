package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
)

func init() { register(newCompletionCmd) }

// completionShells maps each supported shell to where packages install
// its completion script.
var completionShells = map[string]string{
	"bash": "/usr/share/bash-completion/completions/kvtier",
	"zsh":  "/usr/share/zsh/vendor-completions/_kvtier",
	"fish": "/usr/share/fish/vendor_completions.d/kvtier.fish",
}

// newCompletionCmd replaces cobra's default completion command: it accepts
// exactly one known shell (an unknown one is a usage error) and has --json.
func newCompletionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: "Print the completion script for a shell. The Debian package and `make install`\n" +
			"install them; to try one in the current shell:\n" +
			"  bash: source <(kvtier completion bash)   (needs the bash-completion package)\n" +
			"  zsh:  kvtier completion zsh > \"${fpath[1]}/_kvtier\"\n" +
			"  fish: kvtier completion fish | source\n" +
			"--json prints the script with the path packages install it at.",
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("completion needs one shell: bash, zsh or fish")
			}
			if _, ok := completionShells[args[0]]; !ok {
				return usageError("completion for %q: want bash, zsh or fish", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var b bytes.Buffer
			if err := genCompletion(cmd.Root(), args[0], &b); err != nil {
				return fmt.Errorf("generating the %s completion: %w", args[0], err)
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(completionJSON{Shell: args[0],
					InstallPath: completionShells[args[0]], Script: b.String()})
			}
			_, err := cmd.OutOrStdout().Write(b.Bytes())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

type completionJSON struct {
	Shell       string `json:"shell"`
	InstallPath string `json:"install_path"`
	Script      string `json:"script"`
}

func genCompletion(root *cobra.Command, shell string, b *bytes.Buffer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(b, true)
	case "zsh":
		return root.GenZshCompletion(b)
	}
	return root.GenFishCompletion(b, true)
}
