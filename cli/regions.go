package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/daemon/api"
)

func init() { register(newRegionsCmd) }

func newRegionsCmd() *cobra.Command {
	var (
		f      clientFlags
		pid    int
		tenant string
	)
	cmd := &cobra.Command{
		Use:   "regions",
		Short: "List the KV regions the daemon tracks",
		Long: "List the KV regions registered with the daemon (through its API or matched by\n" +
			"config rules): pid, tenant, class, priority, size, and bytes in the fast and\n" +
			"slow tiers as last planned or measured.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pid < 0 {
				return usageError("--pid %d: want a positive process ID", pid)
			}
			c := f.client()
			defer c.Close()
			rs, err := call(cmd.Context(), c, (*api.Client).Regions)
			if err != nil {
				return err
			}
			rs = filterRegions(rs, pid, tenant, cmd.Flags().Changed("tenant"))
			if f.asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(rs)
			}
			return writeRegions(cmd.OutOrStdout(), rs)
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&pid, "pid", 0, "only the regions of this process")
	cmd.Flags().StringVar(&tenant, "tenant", "", "only the regions of this tenant")
	return cmd
}

// filterRegions keeps the regions of pid (0: all) and tenant (when set).
func filterRegions(rs []api.Region, pid int, tenant string, byTenant bool) []api.Region {
	out := []api.Region{}
	for _, r := range rs {
		if (pid == 0 || r.PID == pid) && (!byTenant || r.Tenant == tenant) {
			out = append(out, r)
		}
	}
	return out
}

func writeRegions(w io.Writer, rs []api.Region) error {
	if len(rs) == 0 {
		_, err := fmt.Fprintln(w, "no regions: an engine registers its KV buffers through the API, "+
			"or a rule in the config matches them")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPID\tTENANT\tCLASS\tPRIORITY\tREFS\tSIZE\tBLOCKS\tFAST\tSLOW\tPINNED\tACCESSES\tSOURCE\tNAME")
	var size, fast, slow uint64
	for _, r := range rs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.PID, orDash(r.Tenant),
			r.Class, r.Priority, r.RefCount, topoBytes(r.Length), r.Blocks, topoBytes(r.FastBytes),
			topoBytes(r.SlowBytes), pinnedString(r.Pinned), r.Accesses, r.Source, orDash(r.Name))
		size += r.Length
		fast += r.FastBytes
		slow += r.SlowBytes
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s, %s: %s fast, %s slow\n", plural(len(rs), "region", "regions"), topoBytes(size), topoBytes(fast),
		topoBytes(slow))
	return err
}

// pinnedString is the pinned bytes of a region, "-" for none.
func pinnedString(rs []api.Range) string {
	var n uint64
	for _, r := range rs {
		n += r.Length
	}
	if n == 0 {
		return "-"
	}
	return topoBytes(n)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
