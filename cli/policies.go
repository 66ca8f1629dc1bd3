package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy"
)

func init() { register(newPoliciesCmd) }

func newPoliciesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "policies",
		Short: "List eviction policies, their parameters and defaults",
		Long: "List eviction policies. A policy is selected with a spec such as\n" +
			"  regret_aware:weight=12,horizon=64",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			infos := policy.List()
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(policiesJSON(infos))
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, in := range infos {
				flags := ""
				if in.Offline {
					flags = " [offline: simulator only]"
				}
				fmt.Fprintf(tw, "%s\t%s%s\n", in.Name, in.Doc, flags)
				for _, p := range in.Params {
					fmt.Fprintf(tw, "  %s=%s\t%s\n", p.Name, p.Default, p.Doc)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

type paramJSON struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

type policyJSON struct {
	Name    string      `json:"name"`
	Doc     string      `json:"doc"`
	Offline bool        `json:"offline"`
	Wrapper bool        `json:"wrapper"`
	Params  []paramJSON `json:"params"`
}

func policiesJSON(infos []policy.Info) []policyJSON {
	out := make([]policyJSON, 0, len(infos))
	for _, in := range infos {
		pj := policyJSON{Name: in.Name, Doc: strings.TrimSpace(in.Doc), Offline: in.Offline,
			Wrapper: in.Wrapper, Params: []paramJSON{}}
		for _, p := range in.Params {
			pj.Params = append(pj.Params, paramJSON(p))
		}
		out = append(out, pj)
	}
	return out
}
