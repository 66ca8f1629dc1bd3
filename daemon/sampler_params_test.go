package daemon

import (
	"errors"
	"testing"
	"time"

	"github.com/kvtier/kvtier/bpf"
)

// TestSamplerParams: a sampler block's parameters reach bpf.Options as
// Open takes them, whole numbers written out in full.
func TestSamplerParams(t *testing.T) {
	tests := []struct {
		name, body string
		want       bpf.Options
	}{
		{"uprobe go", `binary = "/bin/engine"` + "\n" + `symbol = "main.hint"` + "\n" + `abi = "go"`,
			bpf.Options{Binary: "/bin/engine", Symbol: "main.hint", ABI: bpf.ABIGo}},
		{"uprobe c", `abi = "c"`, bpf.Options{ABI: bpf.ABIC}},
		{"pebs", `pmu = "pebs"` + "\n" + `period = 1000000`, bpf.Options{PMU: "pebs", SamplePeriod: 1000000}},
		{"pebs-l3miss", `pmu = "pebs-l3miss"`, bpf.Options{PMU: "pebs-l3miss"}},
		{"ibs", `pmu = "ibs"` + "\n" + `max_blocks = 1000000` + "\n" + `max_watched = 100000`,
			bpf.Options{PMU: "ibs", MaxBlocks: 1000000, MaxWatched: 100000}},
		{"period as string", `period = "7"`, bpf.Options{SamplePeriod: 7}},
		{"damon", `sample_interval = "20ms"` + "\n" + `aggregate_interval = "400ms"` + "\n" + `max_regions = 512` + "\n" + `regions_per_block = 4`,
			bpf.Options{DAMONSample: 20 * time.Millisecond, DAMONAggregate: 400 * time.Millisecond, DAMONMaxRegions: 512, DAMONRegionsPerBlock: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseConfig("s.hcl", []byte("sampler \"perf\" {\n"+tt.body+"\n}\n"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := samplerOptions(cfg.Samplers[0], Options{}, time.Second)
			if err != nil {
				t.Fatalf("samplerOptions: %v", err)
			}
			if got.Binary != tt.want.Binary || got.Symbol != tt.want.Symbol || got.ABI != tt.want.ABI ||
				got.PMU != tt.want.PMU || got.SamplePeriod != tt.want.SamplePeriod || got.MaxBlocks != tt.want.MaxBlocks || got.MaxWatched != tt.want.MaxWatched ||
				got.DAMONSample != tt.want.DAMONSample || got.DAMONAggregate != tt.want.DAMONAggregate ||
				got.DAMONMaxRegions != tt.want.DAMONMaxRegions || got.DAMONRegionsPerBlock != tt.want.DAMONRegionsPerBlock {
				t.Errorf("options %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSamplerParamsAgreeWithBPF: the pmu and abi values the config accepts
// are the ones bpf accepts, and the ones it refuses bpf refuses as
// ErrBadOption (so a config that loads cannot fail Open for them).
func TestSamplerParamsAgreeWithBPF(t *testing.T) {
	empty := t.TempDir() // a sysfs without PMUs: a known kind is not found, not refused
	for _, kind := range append([]string{"pebs3", ""}, pmuKinds...) {
		_, err := bpf.DetectPMU(empty, kind, 30)
		want := kind == "pebs3"
		if got := errors.Is(err, bpf.ErrBadOption); got != want {
			t.Errorf("bpf.DetectPMU(%q) = %v; ErrBadOption %v, want %v", kind, err, got, want)
		}
		if kind == "" {
			continue
		}
		var o bpf.Options
		if got := errors.Is(setSamplerParam(&o, "pmu", kind), bpf.ErrBadOption); got != want {
			t.Errorf("pmu = %q refused: %v, want %v", kind, got, want)
		}
	}
	_, err := bpf.Open("uprobe", bpf.Options{ABI: "fortran"})
	var o bpf.Options
	if !errors.Is(err, bpf.ErrBadOption) || !errors.Is(setSamplerParam(&o, "abi", "fortran"), bpf.ErrBadOption) {
		t.Errorf("abi fortran: bpf.Open %v; the config must refuse what Open refuses", err)
	}
}
