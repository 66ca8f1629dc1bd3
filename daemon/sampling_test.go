package daemon

import (
	"errors"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/kvtier/kvtier/bpf"
)

// stubSampler stands for an attached sampler in samplingStatus tests.
type stubSampler struct{ bpf.Sampler }

func TestSamplingStatus(t *testing.T) {
	on := func(name string) *samplerState {
		st := openedState(name)
		st.s = stubSampler{}
		return st
	}
	failed := func(name string) *samplerState { return &samplerState{name: name, err: errors.New("x")} }
	autoNone := &samplerState{name: "none", auto: true, err: bpf.ErrNoAutoSampler}
	tests := []struct {
		name     string
		samplers []*samplerState
		steady   bool
		problem  string // a part of the problem, "" when SteadyState
	}{
		{"damon", []*samplerState{on("damon")}, true, ""},
		{"perf", []*samplerState{on("perf")}, true, ""},
		{"auto chose damon", []*samplerState{func() *samplerState { st := on("damon"); st.auto = true; return st }()}, true, ""},
		{"uprobe hints", []*samplerState{on("sw-page-faults"), on("uprobe")}, true, ""},
		{"sw-page-faults", []*samplerState{on("sw-page-faults")}, false,
			"no sampler sees steady-state accesses: sw-page-faults sees page faults only (first touches"},
		{"both fault samplers", []*samplerState{on("fault"), on("sw-page-faults")}, false,
			"fault and sw-page-faults see page faults only"},
		{"fault, damon failed", []*samplerState{on("fault"), failed("damon")}, false, "fault sees page faults only"},
		{"auto found none", []*samplerState{autoNone}, false, "none is attached, so block heat comes from API hints only"},
		{"nothing configured opened", []*samplerState{failed("perf")}, false, "none is attached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := samplingStatus(tt.samplers)
			if got.SteadyState != tt.steady || !strings.Contains(got.Problem, tt.problem) || (tt.steady && got.Problem != "") {
				t.Errorf("samplingStatus = %+v, want steady %v and a problem with %q", got, tt.steady, tt.problem)
			}
		})
	}
}

func TestParseConfigSamplers(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"", nil},
		{"sampler \"auto\" {}\n", []string{"auto"}},
		{"sampler \"auto\" {\n  period = 20011\n}\nsampler \"uprobe\" {}\n", []string{"auto", "uprobe"}},
		{"sampler \"sw-page-faults\" {}\nsampler \"fault\" {}\n", []string{"sw-page-faults", "fault"}},
	}
	for _, tt := range tests {
		cfg, err := ParseConfig("s.hcl", []byte(tt.src))
		if err != nil {
			t.Errorf("ParseConfig(%q): %v", tt.src, err)
			continue
		}
		var got []string
		for _, s := range cfg.Samplers {
			got = append(got, s.Name)
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("ParseConfig(%q) samplers %v, want %v", tt.src, got, tt.want)
		}
	}
}

// TestAutoWithoutPMUOrDAMON: on a host (the cxl-2node sysfs fixture) with
// neither a memory-sampling PMU nor DAMON, "auto", which is also the
// choice of a config that names no sampler, opens nothing, logs why for
// each candidate, and status and the metric say no sampler sees steady
// state.
func TestAutoWithoutPMUOrDAMON(t *testing.T) {
	for _, src := range []string{"sampler \"auto\" {}\n", ""} {
		d, logs := fixtureDaemon(t, src)
		st := d.Status()
		if len(st.Samplers) != 1 || st.Samplers[0].Name != "auto: none" || st.Samplers[0].Error == "" {
			t.Errorf("%q: samplers %+v, want one \"auto: none\" that says why", src, st.Samplers)
		}
		if st.Sampling == nil || st.Sampling.SteadyState || !strings.Contains(st.Sampling.Problem, "none is attached") {
			t.Errorf("%q: sampling %+v, want the problem", src, st.Sampling)
		}
		var m dto.Metric
		if err := d.metrics.steadyState.Write(&m); err != nil || m.GetGauge().GetValue() != 0 {
			t.Errorf("%q: kvtier_steady_state_sampling = %v (%v), want 0", src, m.GetGauge().GetValue(), err)
		}
		out := logs.String()
		for _, want := range []string{"auto: skipping a sampler: candidate=perf", "no memory-sampling PMU",
			"auto: skipping a sampler: candidate=damon", "no DAMON sysfs interface", "no sampler sees steady-state accesses"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: the log lacks %q:\n%s", src, want, out)
			}
		}
	}
}

// TestFaultSamplerOnly: a daemon whose only sampler is sw-page-faults
// reports that it sees no steady-state accesses, in status and metrics.
func TestFaultSamplerOnly(t *testing.T) {
	td := startDaemon(t, "kernel_tiering = \"report\"\nsampler \"sw-page-faults\" {}\n")
	st, err := td.client.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Samplers) != 1 || st.Samplers[0].Name != "sw-page-faults" || st.Samplers[0].Error != "" {
		t.Fatalf("samplers %+v, want sw-page-faults attached", st.Samplers)
	}
	if st.Sampling == nil || st.Sampling.SteadyState ||
		!strings.Contains(st.Sampling.Problem, "sw-page-faults sees page faults only") {
		t.Errorf("sampling %+v, want the sw-page-faults problem", st.Sampling)
	}
	if v := metric(t, td.d.MetricsAddr(), "kvtier_steady_state_sampling"); v != 0 {
		t.Errorf("kvtier_steady_state_sampling = %v, want 0", v)
	}
	if !strings.Contains(td.logs.String(), "no sampler sees steady-state accesses") {
		t.Errorf("the log does not say so:\n%s", td.logs.String())
	}
}

// TestSteadyStateMetric: the metric is 1 when an attached sampler sees
// steady-state accesses (uprobe hints), next to a fault sampler.
func TestSteadyStateMetric(t *testing.T) {
	td := startDaemon(t, "kernel_tiering = \"report\"\nsampler \"sw-page-faults\" {}\nsampler \"uprobe\" {}\n")
	st := td.d.Status()
	if st.Sampling == nil || !st.Sampling.SteadyState || st.Sampling.Problem != "" {
		t.Errorf("sampling %+v, want steady state (samplers %+v)", st.Sampling, st.Samplers)
	}
	if v := metric(t, td.d.MetricsAddr(), "kvtier_steady_state_sampling"); v != 1 {
		t.Errorf("kvtier_steady_state_sampling = %v, want 1", v)
	}
}
