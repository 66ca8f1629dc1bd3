package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
)

// TestStatusSamplingProblem: status lists a warning (not a problem: the
// daemon stays healthy) when the daemon says no sampler sees steady-state
// accesses, and none when it says one does or (an older daemon) says
// nothing.
func TestStatusSamplingProblem(t *testing.T) {
	const problem = "no sampler sees steady-state accesses: sw-page-faults sees page faults only"
	tests := []struct {
		name     string
		sampling *api.SamplingStatus
		want     bool // the problem is listed
	}{
		{"steady state", &api.SamplingStatus{SteadyState: true}, false},
		{"page faults only", &api.SamplingStatus{Problem: problem}, true},
		{"older daemon", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := fixtureStatus()
			st.Samplers = st.Samplers[:1]
			st.Sampling = tt.sampling
			rep := newStatusReport(st, st)
			if got := slices.Contains(rep.Warnings, problem); got != tt.want || !rep.Healthy {
				t.Errorf("warnings %q, problems %q, healthy %v; want the sampling warning: %v", rep.Warnings,
					rep.Problems, rep.Healthy, tt.want)
			}
		})
	}
}

// TestStatusAutoNoneGolden: sampler "auto" found nothing on this host.
func TestStatusAutoNoneGolden(t *testing.T) {
	st := fixtureStatus()
	st.Samplers = []api.SamplerStatus{{Name: "auto: none", Error: "no candidate available: sampler perf: " +
		"looked for Intel PEBS and AMD IBS op: no memory-sampling PMU: not supported; opening sampler damon: " +
		"DAMON vaddr operations unavailable: not supported"}}
	st.Sampling = &api.SamplingStatus{Problem: "no sampler sees steady-state accesses: none is attached, " +
		"so block heat comes from API hints only"}
	var b bytes.Buffer
	if err := writeStatus(&b, newStatusReport(st, st)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "auto: none") {
		t.Errorf("status does not name the sampler auto chose:\n%s", b.String())
	}
	golden(t, "status_auto_none.golden", b.Bytes())
}

// TestStatusHealthRule: failed samplers are problems (every one failing
// is one more); "auto" finding nothing is a warning.
func TestStatusHealthRule(t *testing.T) {
	ok := api.SamplerStatus{Name: "damon", Events: 10}
	failed := api.SamplerStatus{Name: "perf", Error: "no memory-sampling PMU"}
	none := api.SamplerStatus{Name: autoNone, Error: "no candidate available"}
	tests := []struct {
		name               string
		samplers           []api.SamplerStatus
		problems, warnings int
	}{
		{"one works", []api.SamplerStatus{ok}, 0, 0},
		{"one of two failed", []api.SamplerStatus{ok, failed}, 1, 0},
		{"every one failed", []api.SamplerStatus{failed, failed}, 3, 0},
		{"auto found none", []api.SamplerStatus{none}, 0, 1},
		{"no samplers", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := fixtureStatus()
			st.Samplers = tt.samplers
			rep := newStatusReport(st, st)
			if len(rep.Problems) != tt.problems || len(rep.Warnings) != tt.warnings || rep.Healthy != (tt.problems == 0) {
				t.Errorf("problems %q, warnings %q, healthy %v; want %d and %d", rep.Problems, rep.Warnings,
					rep.Healthy, tt.problems, tt.warnings)
			}
			if err := unhealthy(rep); (err != nil) != (tt.problems > 0) || (err != nil && exitCode(err) != ExitError) {
				t.Errorf("unhealthy: %v", err)
			}
		})
	}
}
