package daemon

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/kvtier/kvtier/bpf"
	"github.com/kvtier/kvtier/daemon/api"
	"github.com/kvtier/kvtier/policy/plan"
)

// DefaultSampler is used when the config names none: the best sampler
// this host has (bpf.OpenAuto).
const DefaultSampler = bpf.Auto

// autoNone names the sampler "auto" chose when it found none.
const autoNone = "none"

// samplerState is one configured sampler, open or failed.
type samplerState struct {
	name string      // the sampler's name; for "auto", the one it chose (autoNone for none)
	auto bool        // chosen by sampler "auto"
	s    bpf.Sampler // nil when opening failed or auto found none
	err  error
	last bpf.Stats
	// sight is what the sampler sees (bpf.SightOf its name), looked up
	// once when it opens: every drained count consults it.
	sight bpf.Sight
}

// observation is what the sampler's drained count c says of its block's
// accesses: heat, observation windows and source for the planner's
// evidence of reuse. A sampler whose events are separate accesses
// (bpf.Sight.Reuse: DAMON aggregation intervals, uprobe hint calls) gives
// one window per event; any other one window per epoch. A sampler of the
// engine's own reports (bpf.Sight.Hint: uprobe) is a hint source, as API
// hints are.
func (st *samplerState) observation(c bpf.Count) plan.Observation {
	o := plan.Observation{Count: uint32(min(c.Accesses, math.MaxUint32)), Windows: 1}
	if st.sight.Reuse {
		o.Windows = uint32(min(max(c.Events, 1), math.MaxUint32))
	}
	if st.sight.Hint {
		o.Source = plan.SourceHint
	}
	return o
}

// label is the sampler's name as status shows it: "auto: damon" for the
// one "auto" chose.
func (st *samplerState) label() string {
	if st.auto {
		return bpf.Auto + ": " + st.name
	}
	return st.name
}

// openSamplers opens every configured sampler. One that fails is logged
// and reported in status; the daemon runs on with the others and with API
// hints. It then says whether any of them sees steady-state accesses.
func (d *Daemon) openSamplers() {
	cfgs := d.cfg.Samplers
	if len(cfgs) == 0 {
		cfgs = []SamplerConfig{{Name: DefaultSampler, Params: map[string]string{}}}
	}
	log := d.log.Named("sampler")
	for _, sc := range cfgs {
		d.samplers = append(d.samplers, openSampler(log, sc, d.opts, d.cfg.Epoch))
	}
	d.sampling = samplingStatus(d.samplers)
	if d.sampling.SteadyState {
		d.metrics.steadyState.Set(1)
		return
	}
	d.metrics.steadyState.Set(0)
	log.Warn(d.sampling.Problem)
}

// openSampler opens the sampler sc configures and logs the outcome.
func openSampler(log hclog.Logger, sc SamplerConfig, o Options, epoch time.Duration) *samplerState {
	st := &samplerState{name: sc.Name}
	opts, err := samplerOptions(sc, o, epoch)
	switch {
	case err != nil:
	case sc.Name == bpf.Auto:
		st.auto = true
		st.name, st.s, err = openAuto(log, opts)
	default:
		st.s, err = bpf.Open(sc.Name, opts)
	}
	st.err = err
	st.sight, _ = bpf.SightOf(st.name) // zero for autoNone: sees nothing
	switch {
	case st.auto && errors.Is(err, bpf.ErrNoAutoSampler):
		log.Info("auto: chose no sampler: no candidate is available")
	case err != nil:
		log.Error("sampler not available; continuing without it", "sampler", st.label(), "error", err)
	default:
		log.Info("sampler attached", "sampler", st.label())
	}
	return st
}

// openAuto opens what sampler "auto" chooses and logs, one line per
// candidate, why each better one was skipped. It returns the chosen name
// (autoNone for none) and, for none, why.
func openAuto(log hclog.Logger, opts bpf.Options) (string, bpf.Sampler, error) {
	s, tried, err := bpf.OpenAuto(opts)
	for _, a := range tried {
		if a.Err != nil {
			log.Info("auto: skipping a sampler", "candidate", a.Name, "reason", a.Err)
		} else {
			log.Info("auto: chose a sampler", "sampler", a.Name)
		}
	}
	if err != nil {
		return autoNone, nil, err
	}
	return s.Name(), s, nil
}

// samplingStatus says whether an attached sampler sees steady-state
// accesses and, when none does, what that means.
func samplingStatus(samplers []*samplerState) api.SamplingStatus {
	var faultOnly []string
	for _, st := range samplers {
		if st.s == nil {
			continue
		}
		if st.sight.SteadyState {
			return api.SamplingStatus{SteadyState: true}
		}
		faultOnly = append(faultOnly, st.name)
	}
	const lead = "no sampler sees steady-state accesses: "
	if len(faultOnly) == 0 {
		return api.SamplingStatus{Problem: lead + "none is attached, so block heat comes from API hints only " +
			"(sampler \"perf\" needs Intel PEBS or AMD IBS, \"damon\" a kernel with DAMON vaddr, " +
			"\"uprobe\" an engine that exports kvtier_hint_access)"}
	}
	return api.SamplingStatus{Problem: fmt.Sprintf("%s%s %s page faults only (first touches and NUMA hinting "+
		"faults), not a process re-reading resident blocks, so block heat comes from API hints and first "+
		"touches only", lead, strings.Join(faultOnly, " and "), verb(len(faultOnly)))}
}

// verb is "sees" for one subject, "see" for more.
func verb(n int) string {
	if n == 1 {
		return "sees"
	}
	return "see"
}
