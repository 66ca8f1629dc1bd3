package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kvtier/kvtier/policy/trace"
)

func init() { register(newTraceCmd) }

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Generate synthetic KV block traces and summarise trace files",
		Long: "Work with KV block access traces: generate the synthetic workloads the\n" +
			"simulator uses, list them, and summarise trace files (kvtier JSONL, CSV, Mooncake or\n" +
			"LMBench JSONL, detected from the file; plain, gzip or zstd).",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newTraceGenCmd(), newTraceStatsCmd(), newTraceWorkloadsCmd())
	return cmd
}

func newTraceGenCmd() *cobra.Command {
	var (
		spec, out, format string
		seed              int64
		asJSON            bool
	)
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Generate a synthetic workload trace",
		Long: "Generate a synthetic workload as a kvtier trace (JSONL or CSV). The workload\n" +
			"is a spec such as periodic_reuse:pages=96,steps=640,period=11; see\n" +
			"`kvtier trace workloads` for the workloads and their parameters. Records go\n" +
			"to stdout unless -o names a file; the format defaults to the file's\n" +
			"extension (.csv is CSV, anything else JSONL). The seed is the spec's seed=,\n" +
			"else --seed, whose default, 42, every kvtier command shares (sim too: the\n" +
			"spec's seed= wins there as here).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := trace.ParseWorkloadSeed(spec, seed)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("--workload: %w", err))
			}
			if asJSON && out == "" {
				return usageError("--json prints a summary and needs -o FILE for the records")
			}
			f, err := genFormat(format, out)
			if err != nil {
				return err
			}
			r, err := trace.NewWorkload(ws.Name, ws.Params)
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("--workload: %w", err))
			}
			n, err := writeTrace(cmd.OutOrStdout(), out, f, r)
			if err != nil || out == "" {
				return err
			}
			return printGenSummary(cmd.OutOrStdout(), asJSON, ws.String(), out, f, n)
		},
	}
	cmd.Flags().StringVar(&spec, "workload", "", "workload spec, e.g. adversarial_burst:burst=14 (required)")
	cmd.Flags().Int64Var(&seed, "seed", trace.DefaultSeed, "random seed, the same default in every command (a workload's seed= wins)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the trace to FILE instead of stdout")
	cmd.Flags().StringVar(&format, "format", "", "jsonl or csv (default: from -o's extension, else jsonl)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary of what was written (needs -o)")
	_ = cmd.MarkFlagRequired("workload")
	return cmd
}

// genFormat picks the output format from --format or the file name.
func genFormat(name, out string) (trace.Format, error) {
	if name == "" {
		if strings.EqualFold(filepath.Ext(out), ".csv") {
			return trace.FormatCSV, nil
		}
		return trace.FormatJSONL, nil
	}
	f, err := trace.ParseFormat(name)
	if err != nil || (f != trace.FormatJSONL && f != trace.FormatCSV) {
		return f, usageError("--format %q: want jsonl or csv", name)
	}
	return f, nil
}

// writeTrace copies r to the file out (created or truncated), or to stdout
// when out is empty.
func writeTrace(stdout io.Writer, out string, f trace.Format, r trace.Reader) (int64, error) {
	dst := stdout
	if out != "" {
		file, err := os.Create(out)
		if err != nil {
			return 0, fmt.Errorf("creating trace: %w", err)
		}
		defer file.Close()
		dst = file
	}
	w, err := trace.NewWriter(dst, f)
	if err != nil {
		return 0, err
	}
	n, err := trace.Copy(w, r)
	if err != nil {
		return n, err
	}
	if out != "" {
		return n, w.Close()
	}
	return n, nil
}

func printGenSummary(w io.Writer, asJSON bool, spec, out string, f trace.Format, n int64) error {
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Workload string `json:"workload"`
			File     string `json:"file"`
			Format   string `json:"format"`
			Records  int64  `json:"records"`
		}{spec, out, f.String(), n})
	}
	_, err := fmt.Fprintf(w, "wrote %d records of %s to %s (%s)\n", n, spec, out, f)
	return err
}

func newTraceStatsCmd() *cobra.Command {
	var (
		asJSON, noDecode bool
		kvBytes          int64
		format, spec     string
	)
	cmd := &cobra.Command{
		Use:   "stats [FILE]",
		Short: "Summarise a trace file or a synthetic workload",
		Long: "Read a trace in one pass and print its accesses, distinct blocks, bytes and\n" +
			"reuse. The format is detected (Mooncake JSONL by its hash_ids key, LMBench's\n" +
			"by a hash_ids key and a string timestamp, kvtier JSONL, CSV) unless --format\n" +
			"says; a gzip or zstd file, told by its first bytes, is read as it decompresses.\n" +
			"Mooncake and LMBench blocks are sized at --kv-bytes-per-token x 512 tokens\n" +
			"(default: Llama-2-70B, 327,680 B/token at fp16). With --workload SPEC a\n" +
			"synthetic workload is summarised instead, with seed 42 (the default of every\n" +
			"kvtier command) unless the spec gives seed=.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (spec != "") {
				return usageError("give either a FILE or --workload SPEC")
			}
			if spec != "" {
				s, err := summarizeWorkload(spec)
				if err != nil {
					return err
				}
				return printStats(cmd.OutOrStdout(), spec, s, asJSON)
			}
			opt := trace.OpenOptions{Mooncake: trace.MooncakeOptions{NoDecode: noDecode, KVBytesPerToken: kvBytes}}
			s, err := summarizeFile(args[0], format, opt)
			if err != nil {
				return err
			}
			return printStats(cmd.OutOrStdout(), args[0], s, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&format, "format", "", "jsonl, mooncake, lmbench or csv (default: detect)")
	cmd.Flags().StringVar(&spec, "workload", "", "summarise a synthetic workload spec instead of a file")
	cmd.Flags().BoolVar(&noDecode, "no-decode", false, "Mooncake, LMBench: read only the prompt blocks (hash_ids)")
	cmd.Flags().Int64Var(&kvBytes, "kv-bytes-per-token", trace.KVBytesLlama2_70B, "Mooncake, LMBench: fp16 KV bytes per token")
	return cmd
}

// summarizeWorkload summarises the synthetic workload spec, seeded with
// kvtier's default seed unless the spec gives seed=. A bad spec is a usage
// error.
func summarizeWorkload(spec string) (trace.Stats, error) {
	ws, err := trace.ParseWorkloadSeed(spec, trace.DefaultSeed)
	var r trace.Reader
	if err == nil {
		r, err = trace.NewWorkload(ws.Name, ws.Params)
	}
	if err != nil {
		return trace.Stats{}, withCode(ExitUsage, fmt.Errorf("--workload: %w", err))
	}
	return trace.Summarize(r)
}

// summarizeFile summarises the trace file at path in one pass, in format
// (detected when empty) and with opt's Mooncake and LMBench block sizing.
// A bad --format is a usage error, checked before the file is opened.
func summarizeFile(path, format string, opt trace.OpenOptions) (trace.Stats, error) {
	if format != "" {
		var err error
		if opt.Format, err = trace.ParseFormat(format); err != nil {
			return trace.Stats{}, usageError("--format: %v", err)
		}
	}
	c, err := trace.OpenWith(path, opt)
	if err != nil {
		return trace.Stats{}, err
	}
	defer c.Close()
	return trace.Summarize(c)
}

func printStats(w io.Writer, name string, s trace.Stats, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(struct {
			Trace string `json:"trace"`
			trace.Stats
		}{name, s})
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "trace\t%s\n", name)
	fmt.Fprintf(tw, "records\t%d (%d accesses: %d reads, %d writes; %d updates, %d frees)\n",
		s.Records, s.Accesses, s.Reads, s.Writes, s.Updates, s.Frees)
	fmt.Fprintf(tw, "distinct blocks\t%d (peak live %d)\n", s.Distinct, s.PeakLive)
	fmt.Fprintf(tw, "bytes accessed\t%d (distinct %d)\n", s.Bytes, s.DistinctBytes)
	fmt.Fprintf(tw, "reuses\t%d (ratio %.4f, mean distance %.1f accesses)\n", s.Reuses, s.ReuseRatio, s.MeanReuseDistance)
	fmt.Fprintf(tw, "pinned / shared accesses\t%d / %d\n", s.Pinned, s.Shared)
	fmt.Fprintf(tw, "tenants / sequences\t%d / %d\n", s.Tenants, s.Sequences)
	fmt.Fprintf(tw, "time\t%d .. %d\n", s.FirstTime, s.LastTime)
	for k, n := range s.ReuseHist {
		if n > 0 {
			fmt.Fprintf(tw, "  reuse distance %d-%d\t%d\n", 1<<k, 1<<(k+1)-1, n)
		}
	}
	return tw.Flush()
}

func newTraceWorkloadsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "workloads",
		Short: "List the synthetic workloads and their parameters",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			infos := trace.Workloads()
			if asJSON {
				type param struct {
					Name    string `json:"name"`
					Default int64  `json:"default"`
					Doc     string `json:"doc"`
				}
				type wl struct {
					Name   string  `json:"name"`
					Doc    string  `json:"doc"`
					Params []param `json:"params"`
				}
				out := make([]wl, 0, len(infos))
				for _, in := range infos {
					w := wl{Name: in.Name, Doc: in.Doc, Params: []param{}}
					for _, p := range in.Params {
						w.Params = append(w.Params, param(p))
					}
					out = append(out, w)
				}
				return json.NewEncoder(cmd.OutOrStdout()).Encode(out)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, in := range infos {
				fmt.Fprintf(tw, "%s\t%s\n", in.Name, in.Doc)
				for _, p := range in.Params {
					fmt.Fprintf(tw, "  %s=%d\t%s\n", p.Name, p.Default, p.Doc)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
