package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/numa"
)

func init() { register(newTopologyCmd) }

func newTopologyCmd() *cobra.Command {
	var (
		sysRoot, procRoot string
		asJSON            bool
	)
	cmd := &cobra.Command{
		Use:   "topology",
		Short: "Show NUMA nodes, memory tiers, node classes and the kernel's own tiering",
		Long: "Show the NUMA nodes (CPUs, memory, distances), the kernel's memory tier of\n" +
			"each, the class kvtier gives it (fast: DRAM, slow: CXL or far memory) and why,\n" +
			"and the kernel's own tiering state (NUMA balancing, demotion, THP), which\n" +
			"fights a user-space placer. Works without the daemon.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkRoots(cmd, map[string]string{"sysfs-root": sysRoot, "procfs-root": procRoot}); err != nil {
				return err
			}
			topo, err := numa.ReadTopology(sysRoot)
			if err != nil {
				return withCode(classify(err), err)
			}
			ks, err := numa.ReadKernelState(procRoot, sysRoot)
			if err != nil {
				return withCode(classify(err), err)
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(topologyJSON{topo, ks, kernelConflicts(ks)})
			}
			return writeTopology(cmd.OutOrStdout(), topo, ks)
		},
	}
	cmd.Flags().StringVar(&sysRoot, "sysfs-root", numa.DefaultSysRoot, "sysfs mount to read (a fixture tree in tests)")
	cmd.Flags().StringVar(&procRoot, "procfs-root", numa.DefaultProcRoot, "procfs mount to read numa_balancing from")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

type topologyJSON struct {
	*numa.Topology
	Kernel    numa.KernelState `json:"kernel"`
	Conflicts []string         `json:"kernel_conflicts"`
}

func kernelConflicts(ks numa.KernelState) []string {
	if c := ks.Conflicts(); c != nil {
		return c
	}
	return []string{}
}

// checkRoots makes a --sysfs-root or --procfs-root that was given but does
// not exist a usage error: the operator mistyped a path, while a /sys
// without NUMA nodes is a kernel that lacks them (ExitUnsupported).
func checkRoots(cmd *cobra.Command, roots map[string]string) error {
	for flag, dir := range roots {
		if !cmd.Flags().Changed(flag) {
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usageError("--%s %s: not a directory", flag, dir)
		}
	}
	return nil
}

func writeTopology(w io.Writer, topo *numa.Topology, ks numa.KernelState) error {
	fmt.Fprintf(w, "sysfs root: %s\n\n", topo.Root)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tCPUS\tMEM_TOTAL\tMEM_FREE\tTIER\tCLASS\tREASON")
	for _, n := range topo.Nodes {
		cpus := numa.FormatList(n.CPUs)
		if cpus == "" {
			cpus = "-"
		}
		tier := "-"
		if n.Tier != numa.NoTier {
			tier = strconv.Itoa(n.Tier)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, cpus, topoBytes(n.MemTotal),
			topoBytes(n.MemFree), tier, n.Class, n.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\ndistances:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, n := range topo.Nodes {
		fmt.Fprintf(tw, "%d\t", n.ID)
	}
	fmt.Fprintln(tw)
	for _, n := range topo.Nodes {
		fmt.Fprintf(tw, "%d\t", n.ID)
		for _, d := range n.Distances {
			fmt.Fprintf(tw, "%d\t", d)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeKernelState(w, ks)
}

func writeKernelState(w io.Writer, ks numa.KernelState) error {
	fmt.Fprintf(w, "\nkernel tiering: numa_balancing=%s demotion_enabled=%s thp=%s thp_defrag=%s\n",
		topoBalancing(ks.NUMABalancing), topoBool(ks.Demotion), topoOrUnknown(ks.THPEnabled), topoOrUnknown(ks.THPDefrag))
	c := ks.Conflicts()
	if len(c) == 0 {
		_, err := fmt.Fprintln(w, "  nothing in the kernel fights kvtier's placement")
		return err
	}
	for _, s := range c {
		fmt.Fprintf(w, "  warning: %s\n", s)
	}
	_, err := fmt.Fprintln(w, "  (the daemon's kernel_tiering = \"disable\" turns these off)")
	return err
}

func topoBalancing(v int) string {
	switch v {
	case numa.Unknown:
		return "unknown"
	case 0:
		return "0 (off)"
	case numa.BalancingNormal:
		return "1 (normal)"
	case numa.BalancingTiering:
		return "2 (memory tiering)"
	}
	return strconv.Itoa(v) + " (normal+memory tiering)"
}

func topoBool(v int) string {
	switch v {
	case 1:
		return "true"
	case 0:
		return "false"
	}
	return "unknown"
}

func topoOrUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// topoBytes prints a byte count with a binary unit ("1.5 GiB").
func topoBytes(b uint64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, i := float64(b), 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", b)
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", v), "0"), ".") + " " + units[i]
}
