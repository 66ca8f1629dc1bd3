package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/kvtier/kvtier/daemon/api"
)

// TestStatusSamplingProblem: status reports a problem when the daemon says
// no sampler sees steady-state accesses, and none when it says one does
// or (an older daemon) says nothing.
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
			if got := slices.Contains(rep.Problems, problem); got != tt.want || rep.Healthy == tt.want {
				t.Errorf("problems %q, healthy %v; want the sampling problem: %v", rep.Problems, rep.Healthy, tt.want)
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
