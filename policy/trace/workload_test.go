package trace

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestWorkloadsDeterministicBySeed(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			a := mustWorkload(t, w.Name, WorkloadParams{Seed: 42})
			b := mustWorkload(t, w.Name, WorkloadParams{Seed: 42})
			c := mustWorkload(t, w.Name, WorkloadParams{Seed: 91})
			if len(a) == 0 {
				t.Fatal("no records")
			}
			if !reflect.DeepEqual(a, b) {
				t.Error("same seed, different traces")
			}
			if reflect.DeepEqual(a, c) {
				t.Error("seeds 42 and 91 give the same trace")
			}
			for i := 1; i < len(a); i++ {
				if a[i].Time < a[i-1].Time {
					t.Fatalf("record %d: time %d after %d", i, a[i].Time, a[i-1].Time)
				}
			}
		})
	}
}

func TestParseWorkload(t *testing.T) {
	tests := []struct {
		spec    string
		want    WorkloadSpec
		wantErr string
	}{
		{spec: "periodic_reuse", want: WorkloadSpec{Name: "periodic_reuse"}},
		{spec: " periodic_reuse:pages=96, steps=640,period=11,seed=42 ",
			want: WorkloadSpec{Name: "periodic_reuse", Params: WorkloadParams{Pages: 96, Steps: 640, Period: 11, Seed: 42}}},
		{spec: "adversarial_burst:gap_min=3,gap_max=9,seed=-4",
			want: WorkloadSpec{Name: "adversarial_burst", Params: WorkloadParams{GapMin: 3, GapMax: 9, Seed: -4}}},
		{spec: "", wantErr: "empty name"},
		{spec: "x:pages", wantErr: "want key=value"},
		{spec: "x:colour=3", wantErr: "unknown parameter colour"},
		{spec: "x:pages=1,pages=2", wantErr: "pages given twice"},
		{spec: "x:pages=many", wantErr: `pages="many": want an integer`},
		{spec: "x:pages=99999999999999999999", wantErr: "want an integer"},
	}
	for _, tt := range tests {
		got, err := ParseWorkload(tt.spec)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadParam) {
				t.Errorf("ParseWorkload(%q) error %v, want ErrBadParam containing %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseWorkload(%q) = %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
		again, err := ParseWorkload(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("String() %q does not parse back: %+v, %v", got.String(), again, err)
		}
	}
}

func TestNewWorkloadErrors(t *testing.T) {
	tests := []struct {
		name    string
		p       WorkloadParams
		target  error
		wantErr string
	}{
		{"no_such", WorkloadParams{}, ErrUnknownWorkload, `"no_such"`},
		{"periodic_reuse", WorkloadParams{Burst: 3}, ErrBadParam, "no parameter burst"},
		{"periodic_reuse", WorkloadParams{Pages: 5, Period: 11}, ErrBadParam, "pages=5"},
		{"periodic_reuse", WorkloadParams{Steps: -1}, ErrBadParam, "steps=-1"},
		{"chat_continuation", WorkloadParams{Jitter: 4096}, ErrBadParam, "jitter=4096"},
		{"chat_continuation", WorkloadParams{Pages: 100, Steps: 50}, ErrBadParam, "pages=100"},
		{"adversarial_burst", WorkloadParams{GapMin: 30}, ErrBadParam, "gap_min=30"},
	}
	for _, tt := range tests {
		_, err := NewWorkload(tt.name, tt.p)
		if !errors.Is(err, tt.target) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("NewWorkload(%s, %+v) error %v, want %v containing %q", tt.name, tt.p, err, tt.target, tt.wantErr)
		}
	}
}

func TestWorkloadSpecMatchesParams(t *testing.T) {
	a := mustWorkload(t, "periodic_reuse", WorkloadParams{Pages: 96, Steps: 640, Period: 11, Seed: 42})
	r, err := NewWorkloadSpec("periodic_reuse:pages=96,steps=640,period=11,seed=42")
	if err != nil {
		t.Fatal(err)
	}
	if b := collect(t, r); !reflect.DeepEqual(a, b) {
		t.Error("spec string and typed parameters give different traces")
	}
	if d := mustWorkload(t, "periodic_reuse", WorkloadParams{Seed: 42}); !reflect.DeepEqual(a, d) {
		t.Error("the defaults are not the seed study's parameters")
	}
}

// TestParseWorkloadSeed checks that a spec's seed= wins over the default,
// and that a spec without one takes it, whatever its spacing.
func TestParseWorkloadSeed(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want int64
	}{
		{"periodic_reuse", DefaultSeed},
		{"periodic_reuse:period=11", DefaultSeed},
		{"periodic_reuse:seed=0", 0},
		{"periodic_reuse: seed = 7 ,period=11", 7},
	} {
		ws, err := ParseWorkloadSeed(tt.spec, DefaultSeed)
		if err != nil || ws.Params.Seed != tt.want {
			t.Errorf("ParseWorkloadSeed(%q) = seed %d, %v; want %d", tt.spec, ws.Params.Seed, err, tt.want)
		}
	}
	if _, err := ParseWorkloadSeed("periodic_reuse:seed=x", 1); !errors.Is(err, ErrBadParam) {
		t.Errorf("bad spec: error %v, want ErrBadParam", err)
	}
}
