package bpf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// fakeSampler is a Sampler that does nothing, named after a candidate.
type fakeSampler struct{ name string }

func (f fakeSampler) Name() string                     { return f.name }
func (fakeSampler) Watch(Region) error                 { return nil }
func (fakeSampler) Unwatch(uint32) error               { return nil }
func (fakeSampler) Drain(dst []Count) ([]Count, error) { return dst, nil }
func (fakeSampler) Stats() (Stats, error)              { return Stats{}, nil }
func (fakeSampler) Close() error                       { return nil }

// fakeEnv answers OpenAuto's questions from tables, and records what was
// opened.
type fakeEnv struct {
	probeErr map[string]error
	openErr  map[string]error
	opened   []string
}

func (f *fakeEnv) probe(name string, _ Options) error { return f.probeErr[name] }

func (f *fakeEnv) open(name string, _ Options) (Sampler, error) {
	f.opened = append(f.opened, name)
	if err := f.openErr[name]; err != nil {
		return nil, fmt.Errorf("opening sampler %s: %w", name, err)
	}
	return fakeSampler{name}, nil
}

func TestOpenAuto(t *testing.T) {
	busy := fmt.Errorf("nr_kdamonds is 1: another DAMON user owns them: %w", ErrBusy)
	noDAMON := fmt.Errorf("no DAMON sysfs interface: %w", ErrNotSupported)
	noVaddr := fmt.Errorf("DAMON vaddr operations unavailable: %w", ErrNotSupported)
	perm := fmt.Errorf("perf_event_open: %w", ErrPermission)
	tests := []struct {
		name     string
		probe    map[string]error
		open     map[string]error
		want     string   // the sampler opened, "" for none
		opened   []string // what was opened, in order
		skipped  []error  // the sentinel each skipped candidate's error wraps
		wantErrs []error  // the sentinels the final error wraps
	}{
		{name: "PMU", want: "perf", opened: []string{"perf"}},
		{name: "no PMU, DAMON vaddr", probe: map[string]error{"perf": ErrNoPMU},
			want: "damon", opened: []string{"damon"}, skipped: []error{ErrNoPMU}},
		{name: "PMU refused, DAMON vaddr", open: map[string]error{"perf": perm},
			want: "damon", opened: []string{"perf", "damon"}, skipped: []error{ErrPermission}},
		{name: "no PMU, DAMON busy", probe: map[string]error{"perf": ErrNoPMU}, open: map[string]error{"damon": busy},
			opened: []string{"damon"}, skipped: []error{ErrNoPMU, ErrBusy},
			wantErrs: []error{ErrNoAutoSampler, ErrNoPMU, ErrBusy}},
		{name: "no PMU, DAMON paddr only", probe: map[string]error{"perf": ErrNoPMU}, open: map[string]error{"damon": noVaddr},
			opened: []string{"damon"}, skipped: []error{ErrNoPMU, ErrNotSupported},
			wantErrs: []error{ErrNoAutoSampler, ErrNotSupported}},
		{name: "nothing", probe: map[string]error{"perf": ErrNoPMU, "damon": noDAMON},
			skipped: []error{ErrNoPMU, ErrNotSupported}, wantErrs: []error{ErrNoAutoSampler, ErrNoPMU, ErrNotSupported}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &fakeEnv{probeErr: tt.probe, openErr: tt.open}
			s, tried, err := openAuto(Options{}, env)
			checkAutoResult(t, s, err, tt.want, tt.wantErrs)
			if !slices.Equal(env.opened, tt.opened) {
				t.Errorf("opened %v, want %v", env.opened, tt.opened)
			}
			for i, a := range tried {
				if a.Name != autoCandidates[i] {
					t.Errorf("attempt %d is %s, want %s (candidates in order)", i, a.Name, autoCandidates[i])
				}
				if i < len(tt.skipped) && !errors.Is(a.Err, tt.skipped[i]) {
					t.Errorf("attempt %s: %v, want it to wrap %v", a.Name, a.Err, tt.skipped[i])
				}
				if a.Err != nil && !strings.Contains(a.Err.Error(), a.Name) {
					t.Errorf("attempt %s: %q does not name the sampler", a.Name, a.Err)
				}
			}
			n := len(tt.skipped) // every skipped candidate, then the one opened
			if tt.want != "" {
				n++
			}
			if len(tried) != n {
				t.Errorf("%d attempts %v, want %d", len(tried), tried, n)
			}
		})
	}
}

// checkAutoResult checks the sampler OpenAuto returned and its error.
func checkAutoResult(t *testing.T, s Sampler, err error, want string, wantErrs []error) {
	t.Helper()
	if want == "" {
		if s != nil || err == nil {
			t.Fatalf("got sampler %v, error %v; want none and an error", s, err)
		}
		for _, w := range wantErrs {
			if !errors.Is(err, w) {
				t.Errorf("error %q does not wrap %v", err, w)
			}
		}
		return
	}
	if err != nil || s == nil || s.Name() != want {
		t.Fatalf("got sampler %v, error %v; want %s", s, err, want)
	}
}

// TestAutoProbe checks the host probes against sysfs fixture trees.
func TestAutoProbe(t *testing.T) {
	damonSys := map[string]string{"kernel/mm/damon/admin/kdamonds/nr_kdamonds": "0\n"}
	tests := []struct {
		name    string
		files   map[string]string
		sampler string
		want    error // nil: the probe passes
	}{
		{"perf with PEBS", intelCPU, "perf", nil},
		{"perf without a PMU", map[string]string{"bus/event_source/devices/software/type": "1\n"}, "perf", ErrNoPMU},
		{"damon sysfs", damonSys, "damon", nil},
		{"no damon sysfs", intelCPU, "damon", ErrNotSupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, tt.files)
			err := hostEnv{}.probe(tt.sampler, Options{SysRoot: root}.withDefaults())
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("probe %s: %v, want %v", tt.sampler, err, tt.want)
			}
		})
	}
}

func TestSight(t *testing.T) {
	for _, n := range Names() {
		if !IsKnown(n) {
			t.Errorf("sampler %s has no Sight", n)
		}
	}
	for _, n := range autoCandidates {
		if s, err := SightOf(n); err != nil || !s.SteadyState {
			t.Errorf("auto candidate %s: %+v, %v; want one that sees steady-state accesses", n, s, err)
		}
	}
	for _, n := range []string{"fault", "sw-page-faults"} {
		if s, _ := SightOf(n); s.SteadyState || !strings.Contains(s.Sees, "first touches") {
			t.Errorf("fault sampler %s: %+v; want first touches only", n, s)
		}
	}
	if _, err := SightOf("bogus"); !errors.Is(err, ErrUnknownSampler) {
		t.Errorf("SightOf(bogus): %v, want ErrUnknownSampler", err)
	}
	if IsKnown(Auto) {
		t.Errorf("%q is a choice among samplers, not one", Auto)
	}
}
