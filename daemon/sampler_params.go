package daemon

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/kvtier/kvtier/bpf"
)

// pmuKinds are the values of a perf sampler's pmu parameter: the PMUs
// bpf.DetectPMU can be told to use.
var pmuKinds = []string{"pebs", "pebs-l3miss", "ibs"}

// samplerParamNames lists the parameters a sampler block may set.
const samplerParamNames = "period, max_blocks, max_watched, pmu, binary, symbol, abi, sample_interval, aggregate_interval, max_regions or regions_per_block"

// errUnknownParam: a sampler block sets a parameter no sampler has.
var errUnknownParam = errors.New("unknown parameter")

// setSamplerParam sets the bpf option that sampler parameter k names to v.
// A bad abi or pmu wraps bpf.ErrBadOption, an unknown k errUnknownParam.
func setSamplerParam(opts *bpf.Options, k, v string) error {
	switch k {
	case "period":
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("period %q: want a whole number", v)
		}
		opts.SamplePeriod = n
	case "max_blocks":
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return fmt.Errorf("max_blocks %q: want a whole number below 2^32", v)
		}
		opts.MaxBlocks = uint32(n)
	case "max_watched":
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 || n > 1<<20 {
			return fmt.Errorf("max_watched %q: want a whole number from 1 to 1048576", v)
		}
		opts.MaxWatched = uint32(n)
	case "pmu":
		if !slices.Contains(pmuKinds, v) {
			return fmt.Errorf("pmu %q: want one of %s: %w", v, strings.Join(pmuKinds, ", "), bpf.ErrBadOption)
		}
		opts.PMU = v
	case "sample_interval", "aggregate_interval", "max_regions", "regions_per_block":
		return setDAMONParam(opts, k, v)
	case "binary":
		opts.Binary = v
	case "symbol":
		opts.Symbol = v
	case "abi":
		switch a := bpf.ABI(v); a {
		case bpf.ABIC, bpf.ABIGo:
			opts.ABI = a
		default:
			return fmt.Errorf("abi %q: want %q or %q: %w", v, bpf.ABIC, bpf.ABIGo, bpf.ErrBadOption)
		}
	default:
		return fmt.Errorf("%w %q (want %s)", errUnknownParam, k, samplerParamNames)
	}
	return nil
}

// setDAMONParam sets the DAMON sampler's option that parameter k names to
// v: its sampling and aggregation intervals, from 100us to 1h, and its
// region counts, 32-bit options. setSamplerParam routes only these four
// names here.
func setDAMONParam(opts *bpf.Options, k, v string) error {
	switch k {
	case "sample_interval", "aggregate_interval":
		d, err := time.ParseDuration(v)
		if err != nil || d < 100*time.Microsecond || d > time.Hour {
			return fmt.Errorf("%s %q: want a duration from 100us to 1h", k, v)
		}
		if k == "sample_interval" {
			opts.DAMONSample = d
		} else {
			opts.DAMONAggregate = d
		}
	case "max_regions":
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 3 {
			return fmt.Errorf("max_regions %q: want a whole number from 3 to 2^32-1", v)
		}
		opts.DAMONMaxRegions = uint32(n)
	case "regions_per_block":
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n < 1 || n > 64 {
			return fmt.Errorf("regions_per_block %q: want a whole number from 1 to 64", v)
		}
		opts.DAMONRegionsPerBlock = uint32(n)
	}
	return nil
}

// samplerOptions maps a sampler block's parameters to bpf.Options; the
// sampler is drained every epoch (DAMON derives its intervals from it).
func samplerOptions(sc SamplerConfig, o Options, epoch time.Duration) (bpf.Options, error) {
	opts := bpf.Options{SysRoot: o.SysRoot, ProcRoot: o.ProcRoot, Epoch: epoch}
	for k, v := range sc.Params {
		if err := setSamplerParam(&opts, k, v); err != nil {
			return opts, fmt.Errorf("sampler %s: %w", sc.Name, err)
		}
	}
	return opts, nil
}

// sampler decodes a sampler block, checking each parameter as Open would
// take it: an unknown one is reported at its name, a bad value at the value.
func (d *decoder) sampler(s rawNamed) SamplerConfig {
	var scratch bpf.Options
	params := d.params(s.Params, func(a *hcl.Attribute, v string) {
		err := setSamplerParam(&scratch, a.Name, v)
		if err == nil {
			return
		}
		r := a.Expr.Range()
		if errors.Is(err, errUnknownParam) {
			r = a.NameRange
		}
		d.fail(r, "Invalid sampler parameter", fmt.Sprintf("sampler %q: %v", s.Name, err))
	})
	return SamplerConfig{Name: s.Name, Params: params}
}
